import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { deriveSubKeys, openEnvelope } from '@fetcher/platform';
import { DATA_LAYOUT } from './backends';
import { loadStandaloneConfig } from './config/standalone.config';
import { startStandalone, type StandaloneService } from './standalone';
import { eventually, freePort } from './testing/free-port';

interface EventRow {
  readonly id: number;
  readonly updated_at: string;
  readonly note: string;
}

/**
 * Incremental extraction through the whole service on real PostgreSQL: the Manager checks and stores
 * the request, the embedded Worker runs it, and the job, the list and `job.completed` report the
 * cursors that the next request takes verbatim. Three chained jobs over a table that receives
 * inserts and updates between them (10,000 rows share one timestamp, cut by a limit) return every
 * row version exactly once, and their union, latest version first, is the table's final state.
 */
describe('incremental jobs in the standalone service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-standalone-incremental-'));
  const schema = `inc_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const configName = `pg-${randomUUID().slice(0, 8)}`;
  const admin = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
  const headers = { 'Content-Type': 'application/json', 'X-Product-Name': 'incr' };
  let service: StandaloneService | undefined;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${service!.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: response.status, body: await response.json() };
  };
  // Tables are named with their schema, as the connection's default scope is public.
  const request = (table: string, incremental: Record<string, unknown>, fields = ['*']) => ({
    dataRequest: { mappedFields: { [configName]: { [`${schema}.${table}`]: fields } }, incremental: { [configName]: { [`${schema}.${table}`]: incremental } } },
    metadata: { source: 'incr' },
  });
  const finished = (id: string) =>
    eventually(async () => {
      const job = (await call('GET', `/v1/fetcher/${id}`)).body;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    });
  const rowsOf = (resultPath: string): EventRow[] => {
    const master = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'base64');
    const document = JSON.parse(openEnvelope(deriveSubKeys(master).storage, readFileSync(join(dataDir, DATA_LAYOUT.objects, resultPath), 'utf8')).toString('utf8'));
    return document[configName][`${schema}.events`] as EventRow[];
  };
  /** Runs one job of the chain to completion: its rows and its cursor. */
  const runJob = async (incremental: Record<string, unknown>) => {
    const created = await call('POST', '/v1/fetcher', request('events', incremental));
    expect(created.status).toBe(202);
    const job = await finished(created.body.jobId);
    expect(job).toMatchObject({ status: 'completed', incremental: { [configName]: { [`${schema}.events`]: incremental } } });
    return { job, rows: rowsOf(job.resultPath), cursor: job.cursors[configName][`${schema}.events`] as { value: string; key: string } };
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.events (id int PRIMARY KEY, updated_at timestamptz NOT NULL, note text NOT NULL)`);
    // 50 older rows, then 10,000 rows sharing one timestamp: the limit cuts the job inside them.
    await admin.query(`INSERT INTO ${schema}.events SELECT g, timestamptz '2026-01-01 00:00:00+00' - g * interval '1 second', 'old' FROM generate_series(10001, 10050) g`);
    await admin.query(`INSERT INTO ${schema}.events SELECT g, timestamptz '2026-01-01 00:00:00+00', 'tied' FROM generate_series(1, 10000) g`);
    await admin.query(`CREATE TABLE ${schema}.odd (id int PRIMARY KEY, doc jsonb, maybe timestamptz, at timestamptz NOT NULL)`);
    await admin.query(`CREATE TABLE ${schema}.nokey (id int, at timestamptz NOT NULL)`);
    const port = await freePort();
    const config = loadStandaloneConfig({ FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}`, FETCHER_DEMO: 'false' }, dataDir);
    service = await startStandalone(config, { logger: false });
    const created = await call('POST', '/v1/management/connections', {
      configName, type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: 'postgres', password: 'trust', schema,
    });
    expect({ status: created.status, body: created.status === 201 ? {} : created.body }).toEqual({ status: 201, body: {} });
  });

  afterAll(async () => {
    await service?.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('chains three jobs by copying cursors: every row version once, and the union is the final table', async () => {
    const first = await runJob({ cursorField: 'updated_at', limit: 4_000 });
    expect(first.rows).toHaveLength(4_000);
    expect(first.cursor).toEqual({ value: '2026-01-01T00:00:00Z', key: '3950' });

    // Between the jobs: new rows, an update of a row already read and of one not read yet.
    await admin.query(`INSERT INTO ${schema}.events SELECT g, clock_timestamp(), 'new1' FROM generate_series(20001, 20100) g`);
    await admin.query(`UPDATE ${schema}.events SET updated_at = clock_timestamp(), note = 'upd1' WHERE id IN (10001, 5, 9000)`);
    const second = await runJob({ cursorField: 'updated_at', limit: 5_000, after: first.cursor });
    expect(second.rows).toHaveLength(5_000);
    expect(second.cursor).toEqual({ value: '2026-01-01T00:00:00Z', key: '8950' }); // still inside the 10,000 tied rows

    await admin.query(`INSERT INTO ${schema}.events SELECT g, clock_timestamp(), 'new2' FROM generate_series(20101, 20150) g`);
    await admin.query(`UPDATE ${schema}.events SET updated_at = clock_timestamp(), note = 'upd2' WHERE id IN (1, 8000, 9999, 20001)`);
    const third = await runJob({ cursorField: 'updated_at', after: second.cursor });

    const chain = [first, second, third];
    const versions = chain.flatMap(({ rows }) => rows.map((row) => `${row.id}@${row.updated_at}`));
    expect(new Set(versions).size).toBe(versions.length); // no version twice
    for (const { rows } of chain) expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    const latest = new Map<number, EventRow>();
    for (const row of chain.flatMap(({ rows }) => rows)) latest.set(row.id, row);
    const table = await admin.query<{ id: number; updated_at: Date; note: string }>(`SELECT id, updated_at, note FROM ${schema}.events`);
    expect(table.rowCount).toBe(10_200);
    expect(latest.size).toBe(10_200);
    for (const row of table.rows) {
      expect({ id: row.id, note: latest.get(row.id)?.note, at: Date.parse(latest.get(row.id)?.updated_at ?? '') }).toEqual({
        id: row.id,
        note: row.note,
        at: row.updated_at.getTime(),
      });
    }
    expect(third.cursor.key).toBe('20001'); // the last write of the chain

    // No new rows: the same cursor back, no rows; the job list shows the cursors too.
    const fourth = await runJob({ cursorField: 'updated_at', after: third.cursor });
    expect(fourth.rows).toEqual([]);
    expect(fourth.cursor).toEqual(third.cursor);
    const list = await call('GET', '/v1/fetcher?limit=100');
    const listed = (list.body.items as { id: string; cursors?: unknown }[]).find((item) => item.id === third.job.id);
    expect(listed?.cursors).toEqual({ [configName]: { [`${schema}.events`]: third.cursor } });

    // job.completed carries the same cursors.
    const events = readFileSync(join(dataDir, DATA_LAYOUT.events), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { routingKey: string; body: { jobId?: string; cursors?: unknown } });
    const completed = events.find((event) => event.routingKey === 'job.completed' && event.body.jobId === third.job.id);
    expect(completed?.body.cursors).toEqual({ [configName]: { [`${schema}.events`]: third.cursor } });
  });

  it('deduplicates on the incremental parameters: the same after answers the same job, another after is a new job', async () => {
    const body = request('events', { cursorField: 'updated_at', limit: 10, after: { value: '2026-01-01T00:00:00Z', key: '100' } });
    const created = await call('POST', '/v1/fetcher', body);
    expect(created.status).toBe(202);
    expect(await call('POST', '/v1/fetcher', body)).toMatchObject({ status: 200, body: { jobId: created.body.jobId } });
    const other = await call('POST', '/v1/fetcher', request('events', { cursorField: 'updated_at', limit: 10, after: { value: '2026-01-01T00:00:00Z', key: '101' } }));
    expect(other.status).toBe(202);
    expect(other.body.jobId).not.toBe(created.body.jobId);
    await finished(created.body.jobId);
    await finished(other.body.jobId);
  });

  it.each([
    ['a JSON cursor', 'odd', { cursorField: 'doc' }, 'incremental field type cannot be ordered', 'doc'],
    ['a nullable cursor without nulls "first"', 'odd', { cursorField: 'maybe' }, 'incremental cursor field is nullable and nulls "first" was not chosen', 'maybe'],
    ['a table without a primary key or tie-breaker', 'nokey', { cursorField: 'at' }, 'incremental table has no tie-breaker (name a unique tieBreaker or use a table with a single-column primary key)', undefined],
    ['an after that does not parse as the column type', 'odd', { cursorField: 'at', after: { value: 'yesterday', key: '1' } }, 'incremental after does not match the column types', undefined],
    ['a cursor field the table does not have', 'odd', { cursorField: 'nope' }, 'incremental cursor field not found in table schema', 'nope'],
  ])('refuses %s at creation with 400 FET-0418 naming it, and stores no job', async (_name, table, incremental, reason, field) => {
    const before = (await call('GET', '/v1/fetcher?limit=100')).body.items.length as number;
    const answer = await call('POST', '/v1/fetcher', request(table, incremental, ['id']));
    expect(answer).toMatchObject({ status: 400, body: { code: 'FET-0418', title: 'Invalid Incremental Request' } });
    expect(answer.body.errors).toEqual([{ dataSourceId: configName, table: `${schema}.${table}`, ...(field ? { field } : {}), reason, message: answer.body.message }]);
    expect(answer.body.message).toBe(`${reason}: ${configName}.${schema}.${table}${field ? `.${field}` : ''}`);
    expect((await call('GET', '/v1/fetcher?limit=100')).body.items).toHaveLength(before);
  });

  it('accepts a nullable cursor with nulls "first", reading the NULL rows first', async () => {
    await admin.query(`INSERT INTO ${schema}.odd VALUES (1, '{}', NULL, now()), (2, '{}', '2026-01-01', now()), (3, '{}', NULL, now())`);
    const created = await call('POST', '/v1/fetcher', request('odd', { cursorField: 'maybe', nulls: 'first', limit: 2 }, ['id']));
    expect(created.status).toBe(202);
    const job = await finished(created.body.jobId);
    expect(job.cursors).toEqual({ [configName]: { [`${schema}.odd`]: { value: null, key: '3' } } });
  });
});
