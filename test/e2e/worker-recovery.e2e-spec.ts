import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import {
  jobBody, jobDoc, listObjects, publishJob, readResult, seedConnection, seedJob, signedHeaders, spoolFiles, startWorkerWorld, until, type WorkerWorld,
} from './support/worker-harness';

const BIG_ROWS = 600_000;

/**
 * Production only: a second Worker taking over the lease of one killed with SIGKILL, and object
 * storage (s3rver) going away mid-job. Standalone mode has one Worker in one process and keeps results
 * on the local disk, so neither can happen there; its own crash recovery is in standalone.e2e-spec.ts.
 */
describe('worker: crashes and storage outages', () => {
  let world: WorkerWorld;
  let pg: Client;
  const workers: AppProcess[] = [];
  const schema = `wkr_${randomUUID().slice(0, 8)}`;

  const startWorker = async (extra: Record<string, string> = {}): Promise<AppProcess> => {
    const port = await freePort();
    const worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), JOB_LEASE_TTL_SEC: '3', ...extra }));
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${schema}.big AS SELECT g AS id, md5(g::text) AS label, g * 1.5 AS amount FROM generate_series(1, ${BIG_ROWS}) g`);
    await pg.query(`CREATE TABLE ${schema}.small AS SELECT g AS id FROM generate_series(1, 30) g`);
    await seedConnection(world.db, { configName: 'pg', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
  });

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  it('a worker killed mid-extraction is taken over once its lease expires; one terminal write, one event, no partial object', async () => {
    const first = await startWorker();
    const jobId = randomUUID();
    const mapped = { pg: { [`${schema}.big`]: ['*'] } };
    await seedJob(world.db, jobId, mapped);
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));

    // Mid-way: the result is spooling and past its first 8 MiB part.
    await until(() => {
      return spoolFiles(world).some((f) => f.name.startsWith(jobId) && f.size > 9 * 1024 * 1024) || undefined;
    }, 60_000, 'the first worker to be mid-way');
    first.child.kill('SIGKILL');
    await first.stop();
    const killedOwner = ((await jobDoc(world, jobId))?.lease as { owner?: string } | undefined)?.owner;
    expect((await jobDoc(world, jobId))?.status).toBe('processing');
    expect(await listObjects(world)).toEqual([]);

    const second = await startWorker();
    const job = await until(async () => {
      const doc = await jobDoc(world, jobId);
      return doc?.status === 'completed' && !(doc.metadata as Record<string, unknown>).terminalEventPending ? doc : undefined;
    }, 90_000, 'the takeover to complete').catch(async (error: unknown) => {
      process.stderr.write(`${JSON.stringify(await jobDoc(world, jobId))}\n${second.output()}\n`);
      throw error;
    });
    expect(killedOwner).toBeDefined();

    const { plaintext, hmac } = await readResult(world, `${world.prefix}external-data/${jobId}.json`);
    expect(hmac).toBe(job.result_hmac);
    const rows = (JSON.parse(plaintext.toString()) as Record<string, Record<string, { id: number }[]>>).pg[`${schema}.big`];
    expect(rows).toHaveLength(BIG_ROWS);
    // Every row exactly once (PostgreSQL may start a sequential scan mid-table, so order is not asserted).
    expect(new Set(rows.map((r) => r.id)).size).toBe(BIG_ROWS);
    expect(await listObjects(world)).toEqual([`${world.prefix}external-data/${jobId}.json`]);

    const events = world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId);
    expect(events.map((e) => e.properties.headers?.['ce-id']?.toString())).toEqual([`fetcher.job.completed.${jobId}`]);
    const metrics = await (await fetch(`${second.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fetcher_worker_lease_takeovers_total 1$/m);
    expect(metrics).toMatch(/^fetcher_worker_jobs_total\{status="completed"\} 1$/m);
    await second.stop();
  });

  it('object storage down during the upload: the job fails, no object appears, the spool file is removed', async () => {
    const worker = await startWorker();
    try {
      const jobId = randomUUID();
      const mapped = { pg: { [`${schema}.big`]: ['*'] } };
      await seedJob(world.db, jobId, mapped);
      const body = jobBody(jobId, mapped);
      publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
      // Storage goes away once the job runs: a Worker that sees it down before stops taking work instead.
      await until(() => {
        return spoolFiles(world).some((f) => f.name.startsWith(jobId) && f.size > 1024 * 1024) || undefined;
      }, 60_000, 'the job to be spooling');
      await world.stopS3();
      const job = await until(async () => {
        const doc = await jobDoc(world, jobId);
        return doc?.status === 'failed' ? doc : undefined;
      }, 60_000, 'the job to fail');
      expect((job.metadata as Record<string, unknown>).error).toBe('engine extraction: engine: [unavailable] failed to persist extraction result: object storage unavailable');
      expect(spoolFiles(world).filter((f) => f.name.startsWith(jobId))).toEqual([]);
      const event = await until(() => world.events.find((e) => e.properties.headers?.['ce-subject']?.toString() === jobId));
      expect(event.fields.routingKey).toBe('job.failed');
      // Engine errors are retryable: the message goes to the dead-letter queue.
      await until(() => world.deadLetters.find((m) => m.properties.headers?.jobId === jobId));
      await world.restartS3();
      expect((await listObjects(world)).filter((k) => k.includes(jobId))).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});
