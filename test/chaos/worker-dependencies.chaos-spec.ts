import { randomUUID } from 'node:crypto';
import { FaultProxy } from '@fetcher/platform/testing';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../e2e/support/app-process';
import {
  jobBody, jobDoc, listObjects, publishJob, seedConnection, seedJob, signedHeaders, startWorkerWorld, until, type WorkerWorld,
} from '../e2e/support/worker-harness';
import { FAULT_MS, OBJECTIVE, report, timeUntil, window } from './support/objectives';

type Doc = Record<string, unknown>;

/**
 * The Worker with its source database and its object storage behind fault proxies. A job whose
 * source connection is reset in the middle of the query, and one whose upload is cut, each end
 * failed with an unavailable-category error, in one terminal state with one event, leaving no
 * object; once the fault is gone the next job completes within the recovery objective.
 */
describe('chaos: the Worker loses its source database or its object storage mid-job', () => {
  let world: WorkerWorld;
  let pg: Client;
  let worker: AppProcess;
  const pgProxy = new FaultProxy(5432);
  let s3Proxy: FaultProxy;
  const schema = `chaos_${randomUUID().slice(0, 8)}`;
  const mapped = { src: { [`${schema}.wide`]: ['id', 'pad'] } };

  const publish = async (): Promise<string> => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, mapped);
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    return jobId;
  };
  const settled = (jobId: string) => until(async () => {
    const doc = await jobDoc(world, jobId);
    return doc?.status === 'completed' || doc?.status === 'failed' ? doc : undefined;
  }, 60_000, `job ${jobId} to end`);
  const eventsOf = (jobId: string) => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId);
  const readyz = async () => ((await (await fetch(`${worker.baseUrl}/readyz`)).json()) as { checks: Record<string, { status: string }> }).checks;

  /** What a fault left behind: one terminal state, one terminal event, no object for a failed job. */
  const expectOneEnding = async (jobId: string, doc: Doc) => {
    const events = await until(() => (eventsOf(jobId).length > 0 ? eventsOf(jobId) : undefined), 30_000, 'the terminal event');
    expect(events.map((e) => e.fields.routingKey)).toEqual([`job.${String(doc.status)}`]);
    expect((await listObjects(world)).filter((k) => k.includes(jobId))).toEqual(doc.status === 'completed' ? [expect.any(String)] : []);
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
    // About 15 MB of rows: big enough that the query and the upload are under way when the fault comes.
    await pg.query(`CREATE TABLE ${schema}.wide AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 120000) g`);
    await pgProxy.start();
    s3Proxy = new FaultProxy(world.s3Port);
    await s3Proxy.start();
    await seedConnection(world.db, { configName: 'src', type: 'POSTGRESQL', host: '127.0.0.1', port: pgProxy.port, database: 'test', user: 'postgres' });
    const port = await freePort();
    worker = await startApp('worker', port, world.env({
      HEALTH_PORT: String(port),
      OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Proxy.port}`,
    }), '/readyz');
  });

  afterAll(async () => {
    await worker?.stop();
    await pgProxy.close();
    await s3Proxy?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  it('source database reset mid-query: the job fails as unavailable, once, and the next job completes', async () => {
    pgProxy.resetAfterBytes(256 * 1024);
    const jobId = await publish();
    const doc = await settled(jobId);
    const resets = pgProxy.accepted;
    await pgProxy.heal();
    expect(doc.status).toBe('failed');
    expect(String((doc.metadata as Doc).error)).toMatch(/\[unavailable\]/);
    await expectOneEnding(jobId, doc);
    const recoveryMs = await recovery();
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
    report('source database reset mid-query', { outcome: doc.status, error: (doc.metadata as Doc).error, sourceDials: resets, recoveryMs });
  });

  it('object storage cut during the upload: the job ends once, /readyz says storage is down, service is back after the cut', async () => {
    const jobId = await publish();
    await until(() => s3Proxy.links.some((link) => link.upstream.bytesWritten > 64 * 1024) || undefined, 60_000, 'the upload to be under way');
    s3Proxy.cut();
    const cutAt = Date.now();
    const doc = await settled(jobId);
    const sawDown = await timeUntil(async () => (await readyz()).s3?.status === 'down', FAULT_MS + 5_000, 'readyz to report storage down')
      .then(() => true, () => false);
    await window(Math.max(0, FAULT_MS - (Date.now() - cutAt)));
    s3Proxy.restore();
    const readyAgainMs = await timeUntil(async () => Object.values(await readyz()).every((c) => c.status !== 'down'));
    await expectOneEnding(jobId, doc);
    const recoveryMs = await recovery();
    expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
    report('object storage cut during upload', { outcome: doc.status, error: (doc.metadata as Doc).error, readyzSawDown: sawDown, readyAgainMs, recoveryMs });
    expect(sawDown).toBe(true);
    expect(['completed', 'failed']).toContain(doc.status);
    if (doc.status === 'failed') expect(String((doc.metadata as Doc).error)).toMatch(/\[unavailable\]/);
  });
});
