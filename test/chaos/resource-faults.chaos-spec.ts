import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../e2e/support/app-process';
import {
  jobBody, jobDoc, listObjects, publishJob, readResult, seedConnection, seedJob, signedHeaders, spoolFiles, startWorkerWorld, until, type WorkerWorld,
} from '../e2e/support/worker-harness';
import { OBJECTIVE, report, timeUntil } from './support/objectives';
import { S3SlowDownFront } from './support/s3-slowdown-front';

type Doc = Record<string, unknown>;

const PERSIST = 'engine extraction: engine: [unavailable] failed to persist extraction result';

/**
 * Resource faults at the Worker, each with its documented outcome (docs/reliability.md):
 *
 * - its spool volume full (ENOSPC) or not writable (EACCES), injected by a preload script in the
 *   Worker process (a small filesystem cannot be mounted here, and root ignores chmod): a result
 *   past the in-memory limit fails on it, a smaller one never touches it;
 * - the result object already in the bucket when the job runs (a redelivery after an upload that
 *   succeeded but whose terminal write did not);
 * - object storage answering writes with 503 Slow Down and `Retry-After`, for a while, then for good;
 * - the Manager's clock 20 s ahead of or behind the Worker's (inside the signed message window).
 *
 * Every job ends in exactly one terminal state with one event, no spool file is left, a failed job
 * leaves no object, and the next job completes once the fault is gone.
 */
describe('chaos: resource faults at the Worker', () => {
  let world: WorkerWorld;
  let pg: Client;
  let worker: AppProcess;
  let front: S3SlowDownFront;
  let faultFile: string;
  const schema = `chaos_res_${randomUUID().slice(0, 8)}`;
  const mapped = { src: { [`${schema}.rows`]: ['id', 'pad'] } };

  const wide = { src: { [`${schema}.wide`]: ['id', 'pad'] } };
  /** About 3 MB stored: past the Worker's in-memory result limit (1 MiB), below the multipart threshold. */
  const mid = { src: { [`${schema}.mid`]: ['id', 'pad'] } };

  const publish = async (t?: number, fields = mapped): Promise<string> => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, fields);
    const body = jobBody(jobId, fields);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue, t === undefined ? {} : { t }));
    return jobId;
  };
  const settled = (jobId: string) => until(async () => {
    const doc = await jobDoc(world, jobId);
    return doc?.status === 'completed' || doc?.status === 'failed' ? doc : undefined;
  }, 60_000, `job ${jobId} to end`);
  const eventsOf = (jobId: string) => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId);
  const objectKey = (jobId: string) => `${world.prefix}external-data/${jobId}.json`;
  const errorOf = (doc: Doc) => String((doc.metadata as Doc).error);

  /** One terminal state, one terminal event, no spool file; the object for a completed job only. */
  const expectOneEnding = async (jobId: string, doc: Doc) => {
    const events = await until(() => (eventsOf(jobId).length > 0 ? eventsOf(jobId) : undefined), 30_000, 'the terminal event');
    expect(events.map((e) => e.fields.routingKey)).toEqual([`job.${String(doc.status)}`]);
    expect((await listObjects(world)).filter((k) => k.includes(jobId))).toEqual(doc.status === 'completed' ? [objectKey(jobId)] : []);
    expect(spoolFiles(world).filter((f) => f.name.startsWith(jobId))).toEqual([]);
  };
  /** A completed job's object decrypts, and its HMAC is the one the job record and the event carry. */
  const expectStoredResult = async (jobId: string, doc: Doc) => {
    const { plaintext, hmac } = await readResult(world, objectKey(jobId));
    expect(hmac).toBe(doc.result_hmac);
    expect(Object.keys((JSON.parse(plaintext.toString('utf8')) as Doc).src as Doc)).toEqual([`${schema}.rows`]);
  };
  /** After the fault: how long until a fresh job completes. */
  const recovery = async () => {
    const started = Date.now();
    const jobId = await publish();
    await timeUntil(async () => (await jobDoc(world, jobId))?.status === 'completed');
    const doc = (await jobDoc(world, jobId))!;
    await expectOneEnding(jobId, doc);
    return Date.now() - started;
  };

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    // About 0.8 MB stored: within the Worker's in-memory result limit (1 MiB by default), so no spool file.
    await pg.query(`CREATE TABLE ${schema}.rows AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 5000) g`);
    await pg.query(`CREATE TABLE ${schema}.mid AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 20000) g`);
    // About 15 MB of rows: past the 8 MiB multipart threshold, so parts are uploaded while it runs.
    await pg.query(`CREATE TABLE ${schema}.wide AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 120000) g`);
    await seedConnection(world.db, { configName: 'src', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
    front = new S3SlowDownFront(world.s3Port);
    await front.start();
    faultFile = join(world.spoolDir, '..', 'fault');
    const port = await freePort();
    worker = await startApp('worker', port, world.env({
      HEALTH_PORT: String(port),
      OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${front.port}`,
      NODE_OPTIONS: `--require ${join(__dirname, 'support', 'spool-faults.preload.js')}`,
      FETCHER_CHAOS_SPOOL_DIR: world.spoolDir,
      FETCHER_CHAOS_FAULT_FILE: faultFile,
    }), '/readyz');
  });

  afterAll(async () => {
    await worker?.stop();
    await front?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  it.each([
    ['full (ENOSPC at every write)', 'ENOSPC', "result spool is full: no space left on the Worker's spool volume"],
    ['not writable (EACCES at every open)', 'EACCES', "result spool is not writable: permission denied on the Worker's spool directory"],
  ])('spool %s: a result past the in-memory limit fails once with the reason, nothing is left, the next job completes', async (_name, code, reason) => {
    writeFileSync(faultFile, code);
    let doc: Doc;
    let jobId: string;
    try {
      jobId = await publish(undefined, mid);
      doc = await settled(jobId);
    } finally {
      rmSync(faultFile, { force: true });
    }
    expect(doc.status).toBe('failed');
    expect(errorOf(doc)).toBe(`${PERSIST}: ${reason}`);
    expect(errorOf(doc)).not.toContain(world.spoolDir);
    await expectOneEnding(jobId, doc);
    const recoveryMs = await recovery();
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
    report(`spool ${code}`, { outcome: doc.status, error: errorOf(doc), recoveryMs });
  });

  it.each(['ENOSPC', 'EACCES'])('spool %s: a result within the in-memory limit never touches the spool and completes', async (code) => {
    writeFileSync(faultFile, code);
    let doc: Doc;
    let jobId: string;
    try {
      jobId = await publish();
      doc = await settled(jobId);
    } finally {
      rmSync(faultFile, { force: true });
    }
    expect(doc.status).toBe('completed');
    await expectOneEnding(jobId, doc);
    await expectStoredResult(jobId, doc);
    report(`spool ${code}, small result`, { outcome: doc.status });
  });

  it('spool fills up in the middle of a multipart upload: the job fails once, the upload is discarded, no object is left', async () => {
    const passedBefore = front.passed;
    let doc: Doc;
    let jobId: string;
    try {
      jobId = await publish(undefined, wide);
      // CreateMultipartUpload and the first part have reached storage: the disk fills now.
      await until(() => front.passed - passedBefore >= 2 || undefined, 60_000, 'the first part to be uploaded');
      writeFileSync(faultFile, 'ENOSPC');
      doc = await settled(jobId);
    } finally {
      rmSync(faultFile, { force: true });
    }
    const writes = front.passed - passedBefore;
    expect(doc.status).toBe('failed');
    expect(errorOf(doc)).toBe(`${PERSIST}: result spool is full: no space left on the Worker's spool volume`);
    await expectOneEnding(jobId, doc);
    const recoveryMs = await recovery();
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
    report('spool ENOSPC mid multipart upload', { outcome: doc.status, storageWritesBeforeFailure: writes, recoveryMs });
  });

  it('result object already present (redelivery after a stored upload): overwritten, completed once, the record names the new object', async () => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, mapped);
    await world.s3.send(new PutObjectCommand({ Bucket: world.bucket, Key: objectKey(jobId), Body: 'a result stored by an earlier run' }));
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    const doc = await settled(jobId);
    expect(doc.status).toBe('completed');
    await expectOneEnding(jobId, doc);
    await expectStoredResult(jobId, doc);
    report('result object already present', { outcome: doc.status });
  });

  it('503 Slow Down with Retry-After for a while: the upload retries and the job completes', async () => {
    front.throttle(2, 2);
    const started = Date.now();
    const jobId = await publish();
    const doc = await settled(jobId);
    const ms = Date.now() - started;
    expect(front.throttled).toHaveLength(2);
    expect(doc.status).toBe('completed');
    await expectOneEnding(jobId, doc);
    await expectStoredResult(jobId, doc);
    report('S3 503 Slow Down x2, Retry-After 2', { outcome: doc.status, throttled: front.throttled.length, secondAnswerAfterMs: front.throttled[1] - front.throttled[0], jobMs: ms });
  });

  it('503 Slow Down for good: the job fails as throttled, within a bound, and the next job completes once it stops', async () => {
    front.throttled.length = 0;
    front.throttle(Number.POSITIVE_INFINITY, 2);
    let doc: Doc;
    let jobId: string;
    let firstToFailMs: number;
    try {
      jobId = await publish();
      doc = await settled(jobId);
      firstToFailMs = Date.now() - front.throttled[0];
    } finally {
      front.stop();
    }
    expect(doc.status).toBe('failed');
    expect(errorOf(doc)).toBe(`${PERSIST}: object storage kept throttling the upload (503 Slow Down) after every retry`);
    await expectOneEnding(jobId, doc);
    await expect(world.s3.send(new HeadObjectCommand({ Bucket: world.bucket, Key: objectKey(jobId) }))).rejects.toThrow();
    const recoveryMs = await recovery();
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
    report('S3 503 Slow Down for good, Retry-After 2', { outcome: doc.status, error: errorOf(doc), throttled: front.throttled.length, gapsMs: front.throttled.slice(1).map((t, i) => t - front.throttled[i]), firstThrottleToFailedMs: firstToFailMs, recoveryMs });
  });

  it.each([
    ['ahead of', 20],
    ['behind', -20],
  ])('the Manager clock 20 s %s the Worker: the message is inside the window and the job completes', async (_name, skewSec) => {
    const jobId = await publish(Math.floor(Date.now() / 1000) + skewSec);
    const doc = await settled(jobId);
    expect(doc.status).toBe('completed');
    await expectOneEnding(jobId, doc);
    expect(world.deadLetters.filter((m) => m.properties.headers?.jobId === jobId)).toEqual([]);
    report(`clock skew ${skewSec} s`, { outcome: doc.status });
  });
});
