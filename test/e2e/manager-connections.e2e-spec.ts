import { randomUUID } from 'node:crypto';
import { type MongoTestServer, startMongoTestServer } from '@fetcher/mongo-test-server';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';
import { POSTGRES, postgresConnection, startTarget, type Target, TARGETS } from './support/targets';

/**
 * A platform team's first steps with the connection routes, over a real port, against the
 * production deployment and standalone mode alike: register a PostgreSQL connection, find it, test
 * it, discover and validate its schema, change it and delete it; the error codes; the test limit.
 *
 * Production only: two Manager replicas sharing the test limit through Redis (standalone mode keeps
 * the limiter in memory, in its single process).
 */
const schema = `e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const sql = async (text: string) => {
  const client = new Client(POSTGRES);
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
};

beforeAll(async () => {
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(`CREATE TABLE ${schema}.invoices (id int PRIMARY KEY, total numeric, issued_at date)`);
});
afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

const connection = (configName: string, overrides: Record<string, unknown> = {}) => postgresConnection(configName, { schema, ...overrides });

describe.each(TARGETS)('connection routes over HTTP (%s)', (name) => {
  let target: Target;
  const routes = '/v1/management/connections';

  beforeAll(async () => {
    target = await startTarget(name);
  });
  afterAll(async () => {
    await target?.stop();
  });

  it('walks a connection from registration to deletion', async () => {
    const call = target.call;
    const created = await call('POST', routes, connection('billing'), { 'X-Product-Name': 'Invoicing' });
    expect(created.status).toBe(201);
    const id = created.body?.id as string;
    expect(created.body).toMatchObject({ productName: 'invoicing', configName: 'billing' });

    expect((await call('GET', routes, undefined, { 'X-Product-Name': 'invoicing' })).body).toMatchObject({ total: 1, items: [{ id }] });
    expect((await call('GET', `${routes}/${id}`)).body).toMatchObject({ id, schema });
    expect((await call('POST', `${routes}/${id}/test`)).body).toMatchObject({ status: 'success', message: 'Connection successful' });
    expect((await call('GET', `${routes}/${id}/schema`)).body).toMatchObject({ tables: [{ name: `${schema}.invoices`, fields: ['id', 'issued_at', 'total'] }] });
    expect((await call('POST', `${routes}/validate-schema`, { mappedFields: { billing: { [`${schema}.invoices`]: ['total'] } } })).status).toBe(200);
    const invalid = await call('POST', `${routes}/validate-schema`, { mappedFields: { billing: { [`${schema}.invoices`]: ['vat'] } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ code: 'FET-1060', errors: [{ type: 'FIELD_NOT_FOUND', dataSourceId: 'billing', table: `${schema}.invoices`, field: 'vat' }] });
    expect((await call('PATCH', `${routes}/${id}`, { metadata: { team: 'ar' } })).body).toMatchObject({ metadata: { team: 'ar' } });
    expect((await call('DELETE', `${routes}/${id}`)).status).toBe(204);
    expect((await call('GET', `${routes}/${id}`)).status).toBe(404);
    expect((await call('DELETE', `${routes}/${id}`)).status).toBe(404);
  });

  it('answers with the documented error codes', async () => {
    const call = target.call;
    const product = { 'X-Product-Name': 'errors' };
    expect(await call('POST', routes, connection('no-product'))).toMatchObject({ status: 400, body: { code: 'FET-0403' } });
    expect(await call('POST', routes, 'not json', { ...product, 'content-type': 'text/plain' })).toMatchObject({
      status: 400,
      body: { code: 'FET-0001', message: 'unable to parse request body' },
    });
    expect(await call('POST', routes, {}, product)).toMatchObject({ status: 400, body: { code: 'FET-0001', message: 'empty request body' } });
    // The cloud metadata address is refused in every deployment, loopback allowlist or not.
    expect(await call('POST', routes, connection('metadata', { host: '169.254.169.254' }), product)).toMatchObject({ status: 400, body: { code: 'FET-0414' } });

    const first = await call('POST', routes, connection('twice'), product);
    expect(first.status).toBe(201);
    expect(await call('POST', routes, connection('twice'), product)).toMatchObject({ status: 409, body: { code: 'FET-1002' } });

    expect(await call('GET', `${routes}/not-a-uuid`)).toMatchObject({ status: 400, body: { code: 'FET-0404', message: 'invalid connection id' } });
    const unknown = randomUUID();
    expect(await call('GET', `${routes}/${unknown}`)).toMatchObject({ status: 404, body: { code: 'FET-1001' } });
    expect(await call('PATCH', `${routes}/${unknown}`, { metadata: { a: 'b' } })).toMatchObject({ status: 404, body: { code: 'FET-1001' } });
    expect(await call('GET', `${routes}?limit=0`)).toMatchObject({ status: 400, body: { code: 'FET-0405' } });
    expect(await call('GET', `${routes}?sortOrder=sideways`)).toMatchObject({ status: 400, body: { code: 'FET-0407' } });

    // Nobody listens on the port: the dial fails and the answer does not say how.
    const closed = await call('POST', routes, connection('closed', { port: await freePort() }), product);
    expect(closed.status).toBe(201);
    expect(await call('POST', `${routes}/${closed.body.id as string}/test`)).toMatchObject({
      status: 500,
      body: { code: 500, title: 'Database Connection Error' },
    });
    expect(await call('GET', '/v1/management/nowhere')).toMatchObject({ status: 404, body: { code: 404, message: 'Cannot GET /v1/management/nowhere' } });
  });

  it('allows ten tests of a connection at once, then answers 429 with Retry-After', async () => {
    const path = `${routes}/${randomUUID()}/test`; // unknown ids count too: the limit comes first
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await target.call('POST', path)).status);
    expect(statuses).toEqual(Array(10).fill(404));
    const denied = await target.call('POST', path);
    expect(denied).toMatchObject({ status: 429, body: { code: 429, title: 'Rate Limit Exceeded' } });
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('connection routes, production only: replicas share the test limit through Redis', () => {
  let mongo: MongoTestServer;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    mongo = await startMongoTestServer();
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await mongo?.close();
  });

  async function start(): Promise<AppProcess> {
    const port = await freePort();
    const mongoName = `e2e_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const app = await startApp('manager', port, { ...managerEnv(mongo.uri, port), REDIS_HOST: '127.0.0.1', MONGO_NAME: mongoName });
    apps.push(app);
    return app;
  }

  it('gives ten connection tests between two replicas', async () => {
    const [first, second] = await Promise.all([start(), start()]);
    const path = `/v1/management/connections/${randomUUID()}/test`;
    const test = async (app: AppProcess) => (await fetch(`${app.baseUrl}${path}`, { method: 'POST' })).status;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await test(first), await test(second));
    expect(statuses.filter((s) => s === 404)).toHaveLength(10);
    const denied = await fetch(`${second.baseUrl}${path}`, { method: 'POST' });
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
