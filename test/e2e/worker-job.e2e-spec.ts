import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { type AppProcess, freePort, runApp, startApp } from './support/app-process';
import { openResult } from './support/result-envelope';
import { runFetcherAsync } from './support/standalone-process';
import { POSTGRES, postgresConnection, startTarget, type Target, TARGETS } from './support/targets';
import {
  jobBody, jobDoc, listObjects, publishJob, readResult, seedConnection, seedJob, signedHeaders, spoolFiles, startWorkerWorld, subKey, until, type WorkerWorld,
} from './support/worker-harness';

/**
 * A job end to end. Against the production deployment and standalone mode alike, through the
 * Manager's HTTP API: a job created over HTTP completes, and its result, read from object storage (S3
 * or the data directory) with nothing but the master key, has the reported HMAC and the fixture's rows.
 *
 * Production only, driven by raw messages on RabbitMQ: the job.completed event signed on the events
 * exchange and the empty spool, a message delivered three times, the Worker's configuration refusal,
 * its SIGTERM drain on its own /readyz, and host safety with an empty allowlist.
 */

/** The fixture the extraction must reproduce, in the canonical document's order. */
const ROWS = [
  { amount: '10.50', created_at: '2026-01-02T03:04:05.123456Z', id: 1, name: 'Ada <&> "quoted"', tags: { b: 2, a: [1, 'x'] } },
  { amount: '0.00', created_at: '1999-12-31T23:59:59Z', id: 2, name: 'Grace', tags: null },
];

const schema = `wk_${randomUUID().slice(0, 8)}`;
let pg: Client;

beforeAll(async () => {
  pg = new Client(POSTGRES);
  await pg.connect();
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.query(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, name text, amount numeric(10,2), created_at timestamptz, tags jsonb)`);
  await pg.query(`INSERT INTO ${schema}.orders VALUES (1, 'Ada <&> "quoted"', 10.5, '2026-01-02T03:04:05.123456Z', '{"b":2,"a":[1,"x"]}'), (2, 'Grace', 0, '1999-12-31T23:59:59Z', NULL)`);
  // The incremental feed tables exist before the first job: job creation checks tables against the
  // connection's cached schema, which an earlier test has already discovered.
  for (const name of TARGETS) {
    await pg.query(`CREATE TABLE ${schema}.feed_${name} (id int PRIMARY KEY, seq bigint NOT NULL); INSERT INTO ${schema}.feed_${name} SELECT g, g / 3 FROM generate_series(1, 10) g`);
  }
});

afterAll(async () => {
  await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  await pg?.end();
});

describe.each(TARGETS)('a job created over HTTP runs to a readable result (%s)', (name) => {
  let target: Target;

  beforeAll(async () => {
    target = await startTarget(name, { worker: true, resultDownload: true });
    const created = await target.call(
      'POST',
      '/v1/management/connections',
      postgresConnection('pg-main'),
      { 'X-Product-Name': 'reporter' },
    );
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await target?.stop();
  });

  /** Creates a job over HTTP and polls it until it is finished; the Worker reports only through the job. */
  async function runJob(dataRequest: Record<string, unknown>): Promise<Record<string, unknown>> {
    const created = await target.call('POST', '/v1/fetcher', { dataRequest, metadata: { source: 'reporter' } });
    expect(created.status).toBe(202);
    const jobId = created.body.jobId as string;
    return until(async () => {
      const job = (await target.call('GET', `/v1/fetcher/${jobId}`)).body as Record<string, unknown>;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    }, 60_000, `job ${jobId} to finish`);
  }

  it('completes; the master key alone decrypts the result, whose HMAC and rows match', async () => {
    const job = await runJob({ mappedFields: { 'pg-main': { [`${schema}.orders`]: ['*'] } } });
    expect(job).toMatchObject({ status: 'completed', resultPath: `external-data/${String(job.id)}.json`, metadata: { source: 'reporter' } });
    expect(job.completedAt).toEqual(expect.any(String));

    const { plaintext, hmac } = openResult(target.masterKey, await target.readResult(String(job.resultPath)));
    expect(hmac).toBe(job.resultHmac);
    expect(JSON.parse(plaintext.toString('utf8'))).toEqual({ 'pg-main': { [`${schema}.orders`]: ROWS } });
    expect(plaintext.toString('utf8')).toContain('"name":"Ada <&> \\"quoted\\""'); // no HTML escaping
  });

  it('downloads the result over HTTP: exactly the bytes fetcher result decrypt writes; an altered object is refused, whole', async () => {
    const job = await runJob({ mappedFields: { 'pg-main': { [`${schema}.orders`]: ['id', 'name', 'amount'] } }, filters: { 'pg-main': { [`${schema}.orders`]: { id: { gte: [1] } } } } });
    expect(job.status).toBe('completed');
    const response = await fetch(`${target.baseUrl}/v1/fetcher/${String(job.id)}/result`);
    expect(response.status).toBe(200);
    const downloaded = Buffer.from(await response.arrayBuffer());

    const out = join(mkdtempSync(join(tmpdir(), 'fetcher-e2e-cli-')), 'result.json');
    try {
      const cli = await runFetcherAsync(['result', 'decrypt', String(job.id), '--hmac', String(job.resultHmac), '--out', out], target.cliEnv);
      expect({ status: cli.status, stderr: cli.stderr }).toEqual({ status: 0, stderr: '' });
      expect(downloaded.equals(readFileSync(out))).toBe(true);
    } finally {
      rmSync(dirname(out), { recursive: true, force: true });
    }

    // One character of the stored text changed: the tag check fails, and not one byte is sent.
    const stored = await target.readResult(String(job.resultPath));
    const i = Math.floor(stored.length / 2);
    await target.writeResult(String(job.resultPath), `${stored.slice(0, i)}${stored[i] === 'A' ? 'B' : 'A'}${stored.slice(i + 1)}`);
    const altered = await target.call('GET', `/v1/fetcher/${String(job.id)}/result`);
    expect(altered).toMatchObject({ status: 500, body: { code: 'FET-1026', title: 'Result Integrity Error' } });
    expect((await runFetcherAsync(['result', 'decrypt', String(job.id), '--hmac', String(job.resultHmac)], target.cliEnv)).status).not.toBe(0);
  });

  it("applies the request's filters and fields", async () => {
    const job = await runJob({
      mappedFields: { 'pg-main': { [`${schema}.orders`]: ['id', 'name'] } },
      filters: { 'pg-main': { [`${schema}.orders`]: { amount: { lt: [1] } } } },
    });
    expect(job.status).toBe('completed');
    const { plaintext } = openResult(target.masterKey, await target.readResult(String(job.resultPath)));
    expect(JSON.parse(plaintext.toString('utf8'))).toEqual({ 'pg-main': { [`${schema}.orders`]: [{ id: 2, name: 'Grace' }] } });
  });

  it('refuses a filter on a field the table does not have at creation: 400 FET-1060 naming it, with the validate-schema report', async () => {
    const table = `${schema}.orders`;
    const answer = await target.call('POST', '/v1/fetcher', {
      dataRequest: { mappedFields: { 'pg-main': { [table]: ['id'] } }, filters: { 'pg-main': { [table]: { colour: { eq: ['red'] } } } } },
      metadata: { source: 'reporter' },
    });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 400,
      body: {
        title: 'Schema validation failed',
        code: 'FET-1060',
        message: `Schema validation found inconsistencies: filter field 'pg-main.${table}.colour' not found`,
        errors: [{ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table, field: 'colour', in: 'filters' }],
      },
    });
  });

  it('chains incremental jobs by copying the cursors the job reports: each row once, then the same cursor when nothing is new', async () => {
    const table = `${schema}.feed_${name}`;
    const incremental = (after?: unknown) => ({ 'pg-main': { [table]: { cursorField: 'seq', limit: 4, ...(after ? { after } : {}) } } });
    const step = async (after?: unknown) => {
      const job = await runJob({ mappedFields: { 'pg-main': { [table]: ['id'] } }, incremental: incremental(after) });
      expect(job).toMatchObject({ status: 'completed', incremental: incremental(after) });
      const { plaintext } = openResult(target.masterKey, await target.readResult(String(job.resultPath)));
      const ids = (JSON.parse(plaintext.toString('utf8'))['pg-main'][table] as { id: number }[]).map((row) => row.id);
      return { ids, cursor: (job.cursors as Record<string, Record<string, unknown>>)['pg-main'][table] };
    };
    const first = await step();
    expect(first).toEqual({ ids: [1, 2, 3, 4], cursor: { value: '1', key: '4' } }); // seq = id / 3: 0 0 1 1 ...
    await pg.query(`INSERT INTO ${table} VALUES (11, 100)`);
    const second = await step(first.cursor);
    expect(second).toEqual({ ids: [5, 6, 7, 8], cursor: { value: '2', key: '8' } });
    const third = await step(second.cursor);
    expect(third).toEqual({ ids: [9, 10, 11], cursor: { value: '100', key: '11' } });
    expect(await step(third.cursor)).toEqual({ ids: [], cursor: third.cursor });
  });
});

describe('worker, production only: raw messages on RabbitMQ', () => {
  let world: WorkerWorld;
  let worker: AppProcess;

  beforeAll(async () => {
    world = await startWorkerWorld();
    await seedConnection(world.db, { configName: 'pg-main', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres', password: 'not-needed-trust' });
    const port = await freePort();
    worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port) }));
  });

  afterAll(async () => {
    await worker?.stop();
    await world?.close();
  });

  it('extracts, encrypts, signs and stores the result; the master key alone reads it', async () => {
    const jobId = randomUUID();
    const mapped = { 'pg-main': { [`${schema}.orders`]: ['*'] } };
    await seedJob(world.db, jobId, mapped);
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));

    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc && doc.status === 'completed' && !(doc.metadata as Record<string, unknown>).terminalEventPending ? doc : undefined;
    }, 60_000, 'the job to complete');
    expect(job).toMatchObject({ status: 'completed', dedup_active: false, result_path: `external-data/${jobId}.json` });
    expect(job.lease).toBeUndefined();

    const { plaintext, hmac } = await readResult(world, `${world.prefix}external-data/${jobId}.json`);
    expect(hmac).toBe(job.result_hmac);
    expect(JSON.parse(plaintext.toString('utf8'))).toEqual({ 'pg-main': { [`${schema}.orders`]: ROWS } });
    expect(plaintext.toString('utf8')).toContain('"name":"Ada <&> \\"quoted\\""'); // no HTML escaping

    const event = await until(() => world.events.find((e) => e.properties.headers?.['ce-subject']?.toString() === jobId));
    expect(event.fields.routingKey).toBe('job.completed');
    expect(event.properties.headers?.['ce-id']?.toString()).toBe(`fetcher.job.completed.${jobId}`);
    const payload = JSON.parse(event.content.toString());
    expect(payload).toMatchObject({ jobId, status: 'completed', metadata: { source: 'reporter' }, result: { path: `external-data/${jobId}.json`, rowCount: 2, hmac, format: 'json' } });
    // The event is signed with the external key over the events exchange and routing key.
    const h = event.properties.headers ?? {};
    const signed = Buffer.concat([Buffer.from(`${String(h.t)}\nv1\n\n${jobId}\n${world.eventsExchange}\njob.completed\n`), event.content]);
    expect(h['x-message-signature']).toBe(createHmac('sha256', subKey('fetcher-external-hmac-v1')).update(signed).digest('hex'));
    expect(spoolFiles(world)).toEqual([]);
  });

  it('fails a job whose filter names a missing field (found by the Worker, not at creation), naming the datasource, table and field', async () => {
    const jobId = randomUUID();
    const table = `${schema}.orders`;
    const mapped = { 'pg-main': { [table]: ['id'] } };
    await seedJob(world.db, jobId, mapped, { source: 'reporter' }, { 'pg-main': { [table]: { colour: { eq: ['red'] } } } });
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc?.status === 'failed' ? doc : undefined;
    }, 60_000, 'the job to fail');
    expect((job.metadata as Record<string, unknown>).error).toContain(`filter references a field not found in table schema: pg-main.${table}.colour`);
  });

  it('runs a message delivered three times once: one extraction, one event', async () => {
    const jobId = randomUUID();
    const mapped = { 'pg-main': { [`${schema}.orders`]: ['id'] } };
    await seedJob(world.db, jobId, mapped);
    const body = jobBody(jobId, mapped);
    for (let i = 0; i < 3; i++) publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    await until(async () => (await jobDoc(world, jobId))?.status === 'completed', 60_000, 'completion');
    // The three deliveries are settled once the queue is empty and nothing is unacked.
    await until(async () => {
      const q = await world.channel.checkQueue(world.workQueue);
      return q.messageCount === 0 ? true : undefined;
    });
    await until(() => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId).length >= 1 || undefined);
    const ids = world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId).map((e) => e.properties.headers?.['ce-id']?.toString());
    expect(ids).toEqual([`fetcher.job.completed.${jobId}`]);
    expect((await listObjects(world)).filter((k) => k.includes(jobId))).toHaveLength(1);
  });

  it('refuses a bad configuration naming the variable, never its value', async () => {
    const child = runApp('worker', world.env({ OBJECT_STORAGE_ENDPOINT: 'https://operator:hunter2@s3.example.com', STREAMING_ENABLED: 'false' }));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('OBJECT_STORAGE_ENDPOINT');
    expect(stderr).toContain('STREAMING_ENABLED=true is required for mandatory job event notifications');
    expect(stderr).not.toContain('hunter2');
  });

  it('stops on SIGTERM: /readyz answers 503 while draining, then the process exits 0', async () => {
    const port = await freePort();
    const second = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), READYZ_DRAIN_DELAY_SEC: '2' }));
    const exited = once(second.child, 'exit');
    second.child.kill('SIGTERM');
    const draining = await until(async () => {
      const response = await fetch(`${second.baseUrl}/readyz`).catch(() => undefined);
      return response?.status === 503 ? response : undefined;
    }, 10_000, 'the drain');
    expect(((await draining.json()) as { checks: Record<string, unknown> }).checks).toHaveProperty('draining');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });

  it('dials stored connections only through host safety; internal datasources are exempt', async () => {
    const port = await freePort();
    const queue = `${world.workQueue}.strict`; // its own queue, so the suite's other worker cannot take these jobs
    // No allowlist: loopback is denied for stored connections, but not for operator-configured ones.
    const strict = await startApp('worker', port, world.env({
      HEALTH_PORT: String(port),
      RABBITMQ_FETCHER_WORK_QUEUE: queue,
      HOST_SAFETY_ALLOWLIST: '',
      DATASOURCE_INTERNAL_CONFIG_NAME: 'pg-internal',
      DATASOURCE_INTERNAL_TYPE: 'postgresql',
      DATASOURCE_INTERNAL_HOST: '127.0.0.1',
      DATASOURCE_INTERNAL_PORT: '5432',
      DATASOURCE_INTERNAL_DATABASE: 'test',
      DATASOURCE_INTERNAL_USER: 'postgres',
    }));
    try {
      const stored = randomUUID();
      const internal = randomUUID();
      await seedJob(world.db, stored, { 'pg-main': { [`${schema}.orders`]: ['id'] } });
      await seedJob(world.db, internal, { 'pg-internal': { [`${schema}.orders`]: ['id'] } });
      for (const [jobId, ds] of [[stored, 'pg-main'], [internal, 'pg-internal']] as const) {
        const body = jobBody(jobId, { [ds]: { [`${schema}.orders`]: ['id'] } });
        world.channel.sendToQueue(queue, body, { persistent: true, contentType: 'application/json', headers: signedHeaders(body, jobId, queue) });
      }
      const settled = async (jobId: string) =>
        until(async () => {
          const doc = await jobDoc(world, jobId);
          return doc && (doc.status === 'completed' || doc.status === 'failed') ? doc : undefined;
        }, 60_000, `job ${jobId}`);
      const denied = await settled(stored);
      expect(denied.status).toBe('failed');
      expect(String((denied.metadata as Record<string, unknown>).error)).toMatch(/^engine extraction: engine: \[/);
      expect(String((denied.metadata as Record<string, unknown>).error)).not.toContain('127.0.0.1');
      const allowed = await settled(internal);
      expect(allowed.status).toBe('completed');
      const { plaintext } = await readResult(world, `${world.prefix}external-data/${internal}.json`);
      expect(JSON.parse(plaintext.toString())).toEqual({ 'pg-internal': { [`${schema}.orders`]: [{ id: 1 }, { id: 2 }] } });
    } finally {
      await strict.stop();
      await world.channel.deleteQueue(queue).catch(() => undefined);
    }
  });
});
