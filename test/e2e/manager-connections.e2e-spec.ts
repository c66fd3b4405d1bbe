import { randomUUID } from 'node:crypto';
import { type MongoTestServer, startMongoTestServer } from '@fetcher/mongo-test-server';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';

/**
 * A platform team's first steps with the built Manager, over a real port: register a PostgreSQL
 * connection, find it, test it, discover and validate its schema, change it and delete it; and two
 * replicas sharing one Redis give ten connection tests between them.
 */
describe('the built Manager serves the connection routes', () => {
  let mongo: MongoTestServer;
  const apps: AppProcess[] = [];
  const schema = `e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const sql = async (text: string) => {
    const client = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    mongo = await startMongoTestServer();
    await sql(`CREATE SCHEMA ${schema}`);
    await sql(`CREATE TABLE ${schema}.invoices (id int PRIMARY KEY, total numeric, issued_at date)`);
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await mongo?.close();
    await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  async function start(env: Record<string, string> = {}): Promise<AppProcess> {
    const port = await freePort();
    const app = await startApp('manager', port, { ...managerEnv(mongo.uri, port), REDIS_HOST: '127.0.0.1', ...env, SERVER_ADDRESS: `127.0.0.1:${port}` });
    apps.push(app);
    return app;
  }

  const call = async (app: AppProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.baseUrl}/v1/management/connections${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
  };

  it('walks a connection from registration to deletion', async () => {
    const app = await start();
    const created = await call(app, 'POST', '', { configName: 'billing', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', schema, userName: 'postgres', password: 'pw' }, { 'X-Product-Name': 'Invoicing' });
    expect(created.status).toBe(201);
    const id = created.body?.id as string;
    expect(created.body).toMatchObject({ productName: 'invoicing', configName: 'billing' });

    expect((await call(app, 'GET', '', undefined, { 'X-Product-Name': 'invoicing' })).body).toMatchObject({ total: 1, items: [{ id }] });
    expect((await call(app, 'GET', `/${id}`)).body).toMatchObject({ id, schema });
    expect((await call(app, 'POST', `/${id}/test`)).body).toMatchObject({ status: 'success', message: 'Connection successful' });
    expect((await call(app, 'GET', `/${id}/schema`)).body).toMatchObject({ tables: [{ name: `${schema}.invoices`, fields: ['id', 'issued_at', 'total'] }] });
    expect((await call(app, 'POST', '/validate-schema', { mappedFields: { billing: { [`${schema}.invoices`]: ['total'] } } })).status).toBe(200);
    const invalid = await call(app, 'POST', '/validate-schema', { mappedFields: { billing: { [`${schema}.invoices`]: ['vat'] } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ code: 'FET-1060', errors: [{ type: 'FIELD_NOT_FOUND', dataSourceId: 'billing', table: `${schema}.invoices`, field: 'vat' }] });
    expect((await call(app, 'PATCH', `/${id}`, { metadata: { team: 'ar' } })).body).toMatchObject({ metadata: { team: 'ar' } });
    expect((await call(app, 'DELETE', `/${id}`)).status).toBe(204);
    expect((await call(app, 'GET', `/${id}`)).status).toBe(404);
  });

  it('shares the test-connection limit between two replicas through Redis', async () => {
    const first = await start();
    const second = await start({ MONGO_NAME: `e2e_${randomUUID().replace(/-/g, '').slice(0, 16)}` });
    const path = `/${randomUUID()}/test`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(first, 'POST', path)).status, (await call(second, 'POST', path)).status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(10);
    const denied = await call(second, 'POST', path);
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
