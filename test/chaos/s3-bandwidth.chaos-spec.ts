import { randomUUID } from 'node:crypto';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { FaultProxy } from '@fetcher/platform/testing';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../e2e/support/app-process';
import {
  jobBody, jobDoc, listObjects, publishJob, readResult, seedConnection, seedJob, signedHeaders, spoolFiles, startWorkerWorld, until, type WorkerWorld,
} from '../e2e/support/worker-harness';
import { OBJECTIVE, report, timeUntil } from './support/objectives';

type Doc = Record<string, unknown>;

/** 1 Mbit/s, in bytes a second. The proxy limits each connection, each direction, to this. */
const BYTES_PER_SECOND = 125_000;
/**
 * Rows of the result: 40,000 rows of an id and an md5 make about 2.6 MB stored (encrypted, base64),
 * one PutObject of about 20 s at 1 Mbit/s. A longer run sets CHAOS_S3_BANDWIDTH_ROWS (a test knob, as
 * CHAOS_FAULT_SEC): 200,000 rows make about 13 MB, a multipart upload of 8 MiB parts.
 */
const ROWS = Number(process.env.CHAOS_S3_BANDWIDTH_ROWS ?? '40000');

/**
 * The Worker's object storage limited to 1 Mbit/s while it uploads a result of a few MiB: the job
 * still completes, once, with a whole object; `/readyz` keeps saying every dependency is up (storage
 * is slow, not gone); the next job completes once the limit is lifted. The figures are the upload's
 * time and rate against the limit.
 */
describe('chaos: 1 Mbit/s to object storage during an upload', () => {
  // About 70 stored bytes a row, sent at 125,000 bytes a second, twice over (the unthrottled job too), with room.
  jest.setTimeout(120_000 + ROWS * 4);
  let world: WorkerWorld;
  let pg: Client;
  let worker: AppProcess;
  let s3Proxy: FaultProxy;
  const schema = `chaos_bw_${randomUUID().slice(0, 8)}`;
  const table = `${schema}.rows`;
  const mapped = { src: { [table]: ['id', 'label'] } };

  const publish = async (): Promise<string> => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, mapped);
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    return jobId;
  };
  const settled = (jobId: string, ms: number) => until(async () => {
    const doc = await jobDoc(world, jobId);
    return doc?.status === 'completed' || doc?.status === 'failed' ? doc : undefined;
  }, ms, `job ${jobId} to end`);
  const eventsOf = (jobId: string) => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId);
  const readyz = async () => {
    const response = await fetch(`${worker.baseUrl}/readyz`);
    return { status: response.status, checks: ((await response.json()) as { checks: Record<string, { status: string }> }).checks };
  };

  /** Completed once, with its one event, one object that decrypts to every row under the recorded HMAC, and no spool file. */
  const expectCompletedOnce = async (jobId: string, doc: Doc): Promise<number> => {
    expect(doc.status).toBe('completed');
    const events = await until(() => (eventsOf(jobId).length > 0 ? eventsOf(jobId) : undefined), 30_000, 'the terminal event');
    expect(events.map((e) => e.fields.routingKey)).toEqual(['job.completed']);
    const key = `${world.prefix}external-data/${jobId}.json`;
    expect((await listObjects(world)).filter((k) => k.includes(jobId))).toEqual([key]);
    const { plaintext, hmac } = await readResult(world, key);
    expect(hmac).toBe(doc.result_hmac);
    expect((JSON.parse(plaintext.toString('utf8')) as Record<string, Record<string, unknown[]>>).src[table]).toHaveLength(ROWS);
    expect(spoolFiles(world).filter((f) => f.name.startsWith(jobId))).toEqual([]);
    return (await world.s3.send(new HeadObjectCommand({ Bucket: world.bucket, Key: key }))).ContentLength ?? 0;
  };

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${table} AS SELECT g AS id, md5(g::text) AS label FROM generate_series(1, ${ROWS}) g`);
    await seedConnection(world.db, { configName: 'src', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
    s3Proxy = new FaultProxy(world.s3Port);
    await s3Proxy.start();
    const port = await freePort();
    worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Proxy.port}` }), '/readyz');
  });

  afterAll(async () => {
    await worker?.stop();
    await s3Proxy?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  it('the job completes once with a whole object, /readyz stays truthful (all up), the next job completes after the limit is lifted', async () => {
    // Unthrottled first, for comparison.
    const baselineStarted = Date.now();
    const baselineId = await publish();
    const baselineDoc = await settled(baselineId, 120_000);
    const baselineMs = Date.now() - baselineStarted;
    await expectCompletedOnce(baselineId, baselineDoc);

    s3Proxy.shape({ bytesPerSecond: BYTES_PER_SECOND });
    // Bytes sent towards storage, per connection (a closed connection leaves `links`: its count is kept as it closed).
    const sent = new Map<object, number>();
    const upward = () => {
      for (const link of s3Proxy.links) {
        if (!sent.has(link)) link.onClose(() => sent.set(link, link.upstream.bytesWritten));
        sent.set(link, link.upstream.bytesWritten);
      }
      return [...sent.values()].reduce((sum, n) => sum + n, 0);
    };
    const samples: { at: number; status: number; checks: Record<string, string> }[] = [];
    let uploadStartedAt: number | undefined;
    let done = false;
    const started = Date.now();
    const jobId = await publish();
    // While the job runs: /readyz twice a second, and when the upload's bytes start to flow (probes carry a few hundred bytes).
    const watch = (async () => {
      while (!done) {
        const answer = await readyz().catch(() => undefined);
        if (answer) samples.push({ at: Date.now() - started, status: answer.status, checks: Object.fromEntries(Object.entries(answer.checks).map(([k, v]) => [k, v.status])) });
        const bytes = upward();
        if (uploadStartedAt === undefined && bytes > 64 * 1024) uploadStartedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    const doc = await settled(jobId, 600_000).finally(() => (done = true));
    const endedAt = Date.now();
    await watch;
    const carried = upward();
    await s3Proxy.heal();
    const storedBytes = await expectCompletedOnce(jobId, doc);

    const recoveryStarted = Date.now();
    const nextId = await publish();
    await timeUntil(async () => (await jobDoc(world, nextId))?.status === 'completed');
    const recoveryMs = Date.now() - recoveryStarted;
    await expectCompletedOnce(nextId, (await jobDoc(world, nextId))!);

    const uploadMs = endedAt - (uploadStartedAt ?? started);
    const notUp = samples.filter((s) => s.status !== 200 || Object.values(s.checks).some((status) => status !== 'up'));
    report('1 Mbit/s to object storage during an upload', {
      rows: ROWS, storedBytes, limitBytesPerSecond: BYTES_PER_SECOND, bytesThroughProxy: carried, unthrottledJobMs: baselineMs,
      jobMs: endedAt - started, uploadMs, uploadBytesPerSecond: Math.round(storedBytes / (uploadMs / 1000)),
      readyzSamples: samples.length, readyzNotAllUp: notUp.slice(0, 5), recoveryMs,
    });
    // Everything the job stored went through the limited proxy; storage was slow, never down.
    expect(carried).toBeGreaterThanOrEqual(storedBytes);
    expect(samples.length).toBeGreaterThan(0);
    expect(notUp).toEqual([]);
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
  });
});
