import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { countByReason, hostileMessages, type HostileContext, type HostileMessage, signedHeaders, sortedJson, validBody } from './support/hostile-messages';
import { POSTGRES } from './support/targets';
import { INTERNAL_HMAC, jobDoc, seedConnection, seedJob, startWorkerWorld, until, type WorkerWorld } from './support/worker-harness';

/** Enough to meet every case at least once and a few hundred random draws; bench/ runs 10,000. */
const HOSTILE = 500;
const VALID_JOBS = 30;
/** Valid messages delivered a second time, byte for byte (a replay inside the window). */
const REPLAYED = 10;
/** Completed jobs whose message is replayed later with a timestamp outside the window. */
const REPLAYED_OLD = 5;
const SEED = 20_261_206;

/** `fetcher_worker_messages_rejected_total` by reason, from the Worker's /metrics. */
async function rejectedByReason(worker: AppProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${worker.baseUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^fetcher_worker_messages_rejected_total\{reason="([^"]+)"\} (\d+)/gm)) counts[match[1]] = Number(match[2]);
  return counts;
}

/** The reason each rejected delivery was logged with, by request id. */
function loggedReasons(output: string): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const match of output.matchAll(/message rejected \((\w+)\), request (hostile-\d+|valid-[\w-]+)/g)) reasons.set(match[2], match[1]);
  return reasons;
}

/**
 * Hostile messages on the work queue of a real Worker process, interleaved with valid jobs: forged,
 * mistyped, replayed, expired, tampered, truncated, huge, undecodable, for unknown jobs (see
 * support/hostile-messages.ts). Every hostile one is dead-lettered and counted with the reason it
 * deserves, the valid jobs complete once each, and nothing stays on the queue or unacknowledged.
 */
describe('worker: generated hostile messages among valid jobs', () => {
  const schema = `hostile_${randomUUID().slice(0, 8)}`;
  let pg: Client;
  let world: WorkerWorld;
  let worker: AppProcess;
  let ctx: HostileContext;

  beforeAll(async () => {
    pg = new Client(POSTGRES);
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${schema}.items (id int PRIMARY KEY)`);
    await pg.query(`INSERT INTO ${schema}.items VALUES (1), (2), (3)`);
    world = await startWorkerWorld();
    await seedConnection(world.db, { configName: 'pg-main', type: 'POSTGRESQL', host: POSTGRES.host, port: POSTGRES.port, database: POSTGRES.database, user: POSTGRES.user, password: 'trust' });
    const port = await freePort();
    worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), LOG_LEVEL: 'warn' }));
    ctx = { key: INTERNAL_HMAC, queue: world.workQueue, datasource: 'pg-main', table: `${schema}.items` };
  });

  afterAll(async () => {
    await worker?.stop();
    await world?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
  });

  const publish = (m: Pick<HostileMessage, 'body' | 'headers' | 'contentType' | 'contentEncoding'>, requestId: string) =>
    world.channel.sendToQueue(world.workQueue, m.body, {
      persistent: true,
      contentType: m.contentType ?? 'application/json',
      ...(m.contentEncoding === undefined ? {} : { contentEncoding: m.contentEncoding }),
      headers: { ...m.headers, 'X-Request-Id': requestId },
    });
  const deadLettered = (prefix: string) => world.deadLetters.filter((d) => String(d.properties.headers?.['X-Request-Id']).startsWith(prefix));

  it('dead-letters and counts every hostile one with its reason; the valid jobs complete once each; nothing is left', async () => {
    const hostile = hostileMessages(ctx, HOSTILE, SEED);
    const before = await rejectedByReason(worker);

    const valid = await Promise.all(Array.from({ length: VALID_JOBS }, async () => {
      const jobId = randomUUID();
      await seedJob(world.db, jobId, { 'pg-main': { [`${schema}.items`]: ['id'] } });
      const body = Buffer.from(sortedJson(validBody(ctx, jobId)));
      return { jobId, body, headers: signedHeaders(ctx, body) };
    }));
    const every = Math.floor(hostile.length / VALID_JOBS);
    hostile.forEach((m, i) => {
      publish(m, `hostile-${i}`);
      const n = i / every;
      if (!Number.isInteger(n) || n >= valid.length) return;
      publish(valid[n], `valid-${valid[n].jobId}`);
      if (n < REPLAYED) publish(valid[n], `valid-${valid[n].jobId}-replay`);
    });

    // Every hostile message reaches the dead-letter queue; every valid job completes.
    await until(() => deadLettered('hostile-').length === hostile.length, 60_000, `${hostile.length} dead letters (have ${deadLettered('hostile-').length})`);
    await until(async () => {
      const docs = await Promise.all(valid.map((v) => jobDoc(world, v.jobId)));
      return docs.every((d) => d?.status === 'completed');
    }, 60_000, 'the valid jobs to complete');

    // A replay of a finished job's message from outside the window: dead-lettered, the job untouched.
    const old = Math.floor(Date.now() / 1000) - 600;
    for (const v of valid.slice(0, REPLAYED_OLD)) publish({ body: v.body, headers: signedHeaders(ctx, v.body, { t: old }) }, `valid-${v.jobId}-old`);
    await until(() => deadLettered('valid-').length === REPLAYED_OLD, 30_000, 'the old replays to be dead-lettered');

    // The reasons: each delivery logged with the one it deserves, and the counters moved by exactly that many.
    const expected = countByReason(hostile);
    expected.expired = (expected.expired ?? 0) + REPLAYED_OLD;
    const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    await until(async () => total(await rejectedByReason(worker)) - total(before) >= total(expected), 10_000, 'the counters');
    const after = await rejectedByReason(worker);
    const moved = Object.fromEntries(Object.keys({ ...after, ...before }).map((r) => [r, (after[r] ?? 0) - (before[r] ?? 0)]).filter(([, n]) => n !== 0));
    const logged = loggedReasons(worker.output());
    const wrong = hostile.flatMap((m, i) => (logged.get(`hostile-${i}`) === m.expected ? [] : [`${m.kind}: expected ${m.expected}, logged ${logged.get(`hostile-${i}`) ?? 'nothing'}`]));
    expect(wrong).toEqual([]);
    expect(moved).toEqual(expected);
    for (const v of valid.slice(0, REPLAYED_OLD)) expect(logged.get(`valid-${v.jobId}-old`)).toBe('expired');

    // The valid jobs: completed, one completion event each, none failed, none dead-lettered but the old replays.
    for (const v of valid) expect((await jobDoc(world, v.jobId))?.status).toBe('completed');
    const completedEvents = world.events.filter((e) => String(e.properties.headers?.['ce-id']).startsWith('fetcher.job.completed.'));
    expect(completedEvents.map((e) => String(e.properties.headers?.['ce-subject'])).sort()).toEqual(valid.map((v) => v.jobId).sort());
    expect(world.events.filter((e) => String(e.properties.headers?.['ce-id']).startsWith('fetcher.job.failed.'))).toEqual([]);
    expect(deadLettered('valid-').map((d) => String(d.properties.headers?.['X-Request-Id'])).sort()).toEqual(valid.slice(0, REPLAYED_OLD).map((v) => `valid-${v.jobId}-old`).sort());

    // Still serving, then nothing left: a stop returns whatever was unacknowledged to the queue.
    expect((await fetch(`${worker.baseUrl}/health`)).status).toBe(200);
    const stopped = await worker.stop();
    expect(stopped).toEqual({ code: 0, signal: null });
    expect((await world.channel.checkQueue(world.workQueue)).messageCount).toBe(0);
  });
});
