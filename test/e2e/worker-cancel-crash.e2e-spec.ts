import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';
import { postgresConnection } from './support/targets';
import { jobDoc, listObjects, MASTER_KEY, spoolFiles, startWorkerWorld, until, type WorkerWorld } from './support/worker-harness';

const BIG_ROWS = 600_000;

/**
 * Production only: a cancel of a running job when its Worker dies, through the real Manager (HTTP,
 * cancel stamp and control message), the built Worker processes, RabbitMQ, the MongoDB test server,
 * s3rver and PostgreSQL. Whether the Worker is killed before the cancel arrives or in the middle of
 * acting on it, the job ends exactly once, `canceled`, after another Worker starts: one `job.canceled`
 * event and no other terminal event, no object, no spool file, and that Worker then runs the next job
 * normally. Standalone mode runs its Worker in the Manager's process: nothing there can die alone.
 */
describe('worker: a cancel survives the death of the Worker running the job', () => {
  let world: WorkerWorld;
  let pg: Client;
  let manager: AppProcess;
  const workers: AppProcess[] = [];
  const schema = `wkc_${randomUUID().slice(0, 8)}`;
  const big = `${schema}.big`;

  const startWorker = async (): Promise<AppProcess> => {
    const port = await freePort();
    const worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), JOB_LEASE_TTL_SEC: '3' }));
    workers.push(worker);
    return worker;
  };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${manager.baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const createJob = async (table: string): Promise<string> => {
    const created = await call('POST', '/v1/fetcher', { dataRequest: { mappedFields: { 'pg-main': { [table]: ['*'] } } }, metadata: { source: 'reporter', n: randomUUID() } });
    expect(created.status).toBe(202);
    return created.body.jobId as string;
  };
  const terminalEvents = (jobId: string) =>
    world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId).map((e) => `${e.fields.routingKey} ${String(e.properties.headers?.['ce-id'])}`);
  /** The job's message is settled: nothing ready and nothing unacknowledged in the work queue. */
  const queueSettled = () =>
    until(async () => {
      const q = await world.channel.checkQueue(world.workQueue);
      return q.messageCount === 0 && q.consumerCount > 0 ? true : undefined;
    }, 60_000, 'the work queue to settle');
  const midway = (jobId: string) =>
    until(() => spoolFiles(world).some((f) => f.name.startsWith(jobId) && f.size > 1024 * 1024) || undefined, 60_000, `job ${jobId} to be spooling`);
  /** A Worker's PostgreSQL session is reading this suite's tables (the connector quotes names, so match the schema alone). */
  const workerReading = async (): Promise<boolean> => {
    const { rows } = await pg.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'fetcher' AND state <> 'idle' AND query LIKE $1",
      [`%${schema}%`],
    );
    return rows[0].n > 0;
  };
  const kill = async (worker: AppProcess): Promise<void> => {
    worker.child.kill('SIGKILL');
    await worker.stop();
  };

  /** The end every scenario must reach: canceled once, its event once and alone, nothing left behind. */
  async function expectCanceledOnce(jobId: string, worker: AppProcess): Promise<void> {
    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc?.status === 'canceled' && !(doc.metadata as Record<string, unknown>).terminalEventPending ? doc : undefined;
    }, 90_000, `job ${jobId} to end canceled`).catch(async (error: unknown) => {
      process.stderr.write(`${JSON.stringify(await jobDoc(world, jobId))}\n${worker.output()}\n`);
      throw error;
    });
    expect(job.lease).toBeUndefined();
    expect(job.result_path).toBeUndefined();
    await until(() => (terminalEvents(jobId).length > 0 ? true : undefined), 30_000, 'the terminal event');
    await queueSettled();
    // A second cancel answers the same state; the job's state and events did not move.
    const again = await call('POST', `/v1/fetcher/${jobId}/cancel`);
    expect({ status: again.status, jobStatus: again.body.status }).toEqual({ status: 200, jobStatus: 'canceled' });
    expect((await jobDoc(world, jobId))?.status).toBe('canceled');
    // One terminal event: delivery is at least once with a deterministic id, so a Worker killed between
    // publishing and clearing its outbox marker has the next one publish the same event (same ce-id) again.
    expect([...new Set(terminalEvents(jobId))]).toEqual([`job.canceled fetcher.job.canceled.${jobId}`]);
    expect((await listObjects(world)).filter((k) => k.includes(jobId))).toEqual([]);
    expect(spoolFiles(world).filter((f) => f.name.startsWith(jobId))).toEqual([]);
  }

  /** The Worker that finished the cancel takes the next job and completes it. */
  async function expectNextJobCompletes(worker: AppProcess): Promise<void> {
    const next = await createJob(`${schema}.small`);
    const done = await until(async () => {
      const doc = await jobDoc(world, next);
      return doc?.status === 'completed' || doc?.status === 'failed' ? doc : undefined;
    }, 60_000, 'the next job to finish').catch((error: unknown) => {
      process.stderr.write(`${worker.output()}\n`);
      throw error;
    });
    expect(done.status).toBe('completed');
    expect(await listObjects(world)).toContain(`${world.prefix}external-data/${next}.json`);
  }

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${big} AS SELECT g AS id, md5(g::text) AS label, g * 1.5 AS amount FROM generate_series(1, ${BIG_ROWS}) g`);
    await pg.query(`CREATE TABLE ${schema}.small AS SELECT g AS id FROM generate_series(1, 30) g`);
    const port = await freePort();
    manager = await startApp(
      'manager',
      port,
      managerEnv(world.mongo.uri, port, {
        APP_ENC_KEY: MASTER_KEY.toString('base64'),
        RABBITMQ_HOST: '127.0.0.1',
        REDIS_HOST: '127.0.0.1',
        MONGO_NAME: world.env().MONGO_NAME,
        RABBITMQ_FETCHER_WORK_QUEUE: world.workQueue,
      }),
      '/readyz',
    );
    expect((await call('POST', '/v1/management/connections', postgresConnection('pg-main'), { 'X-Product-Name': 'reporter' })).status).toBe(201);
  });

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await manager?.stop();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  it('a cancel that arrives while the Worker is dead: the next Worker ends the job canceled, once, and runs the next job', async () => {
    const first = await startWorker();
    const jobId = await createJob(big);
    await midway(jobId);
    await kill(first);
    expect((await jobDoc(world, jobId))?.status).toBe('processing');

    // Nobody runs the job now: the Manager stamps the request and answers 202 (processing, asked to stop).
    const canceled = await call('POST', `/v1/fetcher/${jobId}/cancel`);
    expect({ status: canceled.status, jobStatus: canceled.body.status }).toEqual({ status: 202, jobStatus: 'processing' });
    expect((await jobDoc(world, jobId))?.cancel_requested_at).toBeInstanceOf(Date);

    const second = await startWorker();
    await expectCanceledOnce(jobId, second);
    await expectNextJobCompletes(second);
    await second.stop();
  });

  it('a Worker SIGKILLed while it acts on the cancel: the next Worker ends the job canceled, once, and runs the next job', async () => {
    const first = await startWorker();
    const jobId = await createJob(big);
    await midway(jobId);

    // The kill lands once the Worker has aborted its read (its PostgreSQL session on the table is
    // gone), while it closes the upload and the spool and before its terminal write (that takes it
    // about 100 ms more, see bench/cancel-latency.bench.ts).
    const canceled = await call('POST', `/v1/fetcher/${jobId}/cancel`);
    expect(canceled.status).toBe(202);
    await until(async () => ((await workerReading()) ? undefined : true), 30_000, 'the Worker to stop reading');
    await kill(first);

    const second = await startWorker();
    await expectCanceledOnce(jobId, second);
    await expectNextJobCompletes(second);
    await second.stop();
  });
});
