import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { Client } from 'pg';
import { loadStandaloneConfig } from './config/standalone.config';
import { startStandalone, type StandaloneService } from './standalone';
import { eventually, freePort } from './testing/free-port';

/**
 * The Worker keeps a job's datasource connections for the next job of the same connection
 * (CONNECTION_REUSE_IDLE_MS). Seen from the database: each connection logs in as a role of its own,
 * and the server's own list of sessions (pg_stat_activity, the MariaDB process list) shows which
 * backend served each job.
 */
describe('datasource connections kept between jobs (standalone service, real PostgreSQL and MariaDB)', () => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  const schema = `reuse_${suffix}`;
  const pgRole = `reuse_${suffix}`;
  const myDb = `reuse_${suffix}`;
  const myUser = `reuse_${suffix}`;
  const admin = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
  let maria: Connection;
  const dirs: string[] = [];
  const services: StandaloneService[] = [];

  const start = async (env: Record<string, string>): Promise<StandaloneService> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-standalone-reuse-'));
    dirs.push(dataDir);
    const port = await freePort();
    const config = loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}`, FETCHER_DEMO: 'false', ...env }, dataDir);
    const service = await startStandalone(config, { logger: false });
    services.push(service);
    return service;
  };
  const stop = async (service: StandaloneService): Promise<void> => {
    services.splice(services.indexOf(service), 1);
    await service.close();
  };

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions
  const call = async (service: StandaloneService, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'reuse' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json() };
  };

  const createConnectionIn = async (service: StandaloneService, body: Record<string, unknown>): Promise<string> => {
    const created = await call(service, 'POST', '/v1/management/connections', body);
    expect({ status: created.status, body: created.status === 201 ? {} : created.body }).toEqual({ status: 201, body: {} });
    return created.body.id as string;
  };

  /** Runs one job to its end; a distinct correlation id each time, so deduplication never answers it. */
  const runJob = async (service: StandaloneService, configName: string, table: string): Promise<void> => {
    const created = await call(service, 'POST', '/v1/fetcher', {
      dataRequest: { mappedFields: { [configName]: { [table]: ['id', 'total'] } } },
      metadata: { source: 'reuse', correlationId: randomUUID() },
    });
    expect(created.status).toBe(202);
    const job = await eventually(async () => {
      const read = (await call(service, 'GET', `/v1/fetcher/${created.body.jobId}`)).body;
      return read.status === 'pending' || read.status === 'processing' ? undefined : read;
    });
    expect({ status: job.status, error: job.metadata?.error }).toEqual({ status: 'completed', error: undefined });
  };

  const pgBackends = async (): Promise<number[]> =>
    (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE usename = $1 ORDER BY pid', [pgRole])).rows.map((r) => r.pid);
  const mariaSessions = async (): Promise<number[]> => {
    const [rows] = await maria.query('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ? ORDER BY ID', [myUser]);
    return (rows as { id: number }[]).map((r) => Number(r.id));
  };
  /** The sessions once they stop changing: the Manager's connectivity check (dial, close) may still be closing. */
  const settled = async (read: () => Promise<number[]>, accept: (ids: number[]) => boolean): Promise<number[]> =>
    eventually(async () => {
      const ids = await read();
      return accept(ids) ? ids : undefined;
    });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE ROLE ${pgRole} LOGIN`);
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.orders (id int primary key, total numeric); INSERT INTO ${schema}.orders SELECT g, g * 10 FROM generate_series(1, 30) g`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${pgRole}; GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${pgRole}`);
    maria = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
    await maria.query(`CREATE DATABASE ${myDb}`);
    await maria.query(`CREATE TABLE ${myDb}.orders (id int primary key, total decimal(10,2))`);
    await maria.query(`INSERT INTO ${myDb}.orders VALUES (1, 10), (2, 20), (3, 30)`);
    await maria.query(`CREATE USER '${myUser}'@'%' IDENTIFIED BY 'reuse-pass-1'`);
    await maria.query(`GRANT SELECT ON ${myDb}.* TO '${myUser}'@'%'`);
  });

  afterAll(async () => {
    for (const service of services) await service.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.query(`DROP ROLE IF EXISTS ${pgRole}`);
    await admin.end();
    await maria.query(`DROP USER IF EXISTS '${myUser}'@'%'`);
    await maria.query(`DROP DATABASE IF EXISTS ${myDb}`);
    await maria.end();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('PostgreSQL: the second job runs on the first job\'s backend; a changed password gets a new one and ends the old', async () => {
    const service = await start({ CONNECTION_REUSE_IDLE_MS: '60000' });
    const configName = `pg-${suffix}`;
    const id = await createConnectionIn(service, {
      configName, type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: pgRole, password: 'first-password', schema,
    });
    await runJob(service, configName, `${schema}.orders`);
    const first = await settled(pgBackends, (ids) => ids.length > 0);
    await runJob(service, configName, `${schema}.orders`);
    // The same backend processes, none new: no dial for the second job.
    expect(await settled(pgBackends, (ids) => ids.join() === first.join())).toEqual(first);

    // The server trusts local logins, so any password works: what changes is the credential the Worker holds.
    const patched = await call(service, 'PATCH', `/v1/management/connections/${id}`, { password: 'second-password' });
    expect(patched.status).toBe(200);
    await runJob(service, configName, `${schema}.orders`);
    const third = await settled(pgBackends, (ids) => ids.length > 0 && ids.every((pid) => !first.includes(pid)));
    expect(third.filter((pid) => first.includes(pid))).toEqual([]);

    // Shutdown closes what is kept.
    await stop(service);
    expect(await settled(pgBackends, (ids) => ids.length === 0)).toEqual([]);
  });

  it('MariaDB: the second job runs on the first job\'s session', async () => {
    const service = await start({ CONNECTION_REUSE_IDLE_MS: '60000' });
    const configName = `my-${suffix}`;
    await createConnectionIn(service, {
      configName, type: 'MYSQL', host: '127.0.0.1', port: 3306, databaseName: myDb, userName: myUser, password: 'reuse-pass-1',
    });
    await runJob(service, configName, 'orders');
    const first = await settled(mariaSessions, (ids) => ids.length > 0);
    await runJob(service, configName, 'orders');
    expect(await settled(mariaSessions, (ids) => ids.join() === first.join())).toEqual(first);
    await stop(service);
    expect(await settled(mariaSessions, (ids) => ids.length === 0)).toEqual([]);
  });

  it('with CONNECTION_REUSE_IDLE_MS=0 each job dials and closes its own session', async () => {
    const service = await start({ CONNECTION_REUSE_IDLE_MS: '0' });
    const configName = `pg0-${suffix}`;
    await createConnectionIn(service, {
      configName, type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: pgRole, password: 'first-password', schema,
    });
    await runJob(service, configName, `${schema}.orders`);
    expect(await settled(pgBackends, (ids) => ids.length === 0)).toEqual([]);
    await stop(service);
  });
});
