import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { FaultProxy } from '@fetcher/platform/testing';
import type { Db } from 'mongodb';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../../test/e2e/support/app-process';
import { managerEnv } from '../../test/e2e/support/manager-env';
import { postgresConnection } from '../../test/e2e/support/targets';
import {
  jobBody, jobDoc, listObjects, MASTER_KEY, publishJob, readResult, seedConnection, seedJob, signedHeaders, startWorkerWorld, until, uuidBinary, type WorkerWorld,
} from '../../test/e2e/support/worker-harness';
import { report } from '../../test/chaos/support/objectives';

/** Bench knobs (environment): trials of each kind, rows of the Worker trials' table, the Workers' lease TTL. */
const TRIALS = Number(process.env.KILL9_TRIALS ?? '20');
const ROWS = Number(process.env.KILL9_ROWS ?? '1000000');
const LEASE_SEC = Number(process.env.KILL9_LEASE_SEC ?? '5');

type Doc = Record<string, unknown>;

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
};
const summary = (values: readonly number[]) => ({ min: Math.min(...values), p50: percentile(values, 0.5), p95: percentile(values, 0.95), max: Math.max(...values) });

/**
 * kill -9 trials (docs/reliability.md): processes killed with SIGKILL where they hold work nobody else
 * has yet, with everything they left behind checked afterwards.
 *
 * - A Worker killed at a random point of a 1M-row PostgreSQL job while a second Worker runs: the
 *   broker hands the killed Worker's delivery to the second one, which watches the job's lease and
 *   takes the job over once the lease runs out. Each trial must end with the job completed once, one
 *   terminal event id, exactly one object (whole: it decrypts, its HMAC is the record's, every row is
 *   in it) and no spool file of the job once a Worker has started again on the spool volume.
 * - The Manager killed between a job's insert and its publish: the Manager's RabbitMQ connection goes
 *   through a fault proxy made half-open just before the request, so the insert happens and the
 *   publish cannot reach the broker; the bench sees the job stored without `dispatched_at` and kills
 *   the Manager then. The restarted Manager's dispatch sweep must publish every such job exactly once.
 *
 * Run by `KILL9_TRIALS=20 npx jest bench/chaos/kill9-trials --selectProjects chaos-bench --runInBand`
 * (and by bench/chaos.sh); `-t Worker` or `-t Manager` runs one kind.
 */
describe('bench: kill -9 trials', () => {
  jest.setTimeout(6 * 3_600_000);
  let world: WorkerWorld;
  let pg: Client;
  const schema = `kill9_${randomUUID().slice(0, 8)}`;
  const table = `${schema}.rows`;
  const mapped = { src: { [table]: ['id', 'label'] } };

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    // About 80 MB stored (encrypted, base64-encoded): a multipart upload of 8 MiB parts.
    await pg.query(`CREATE TABLE ${table} AS SELECT g AS id, md5(g::text) AS label FROM generate_series(1, ${ROWS}) g`);
    await seedConnection(world.db, { configName: 'src', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
  });

  afterAll(async () => {
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  describe('a Worker killed mid-job', () => {
    const workers: AppProcess[] = [];
    const startWorker = async (): Promise<AppProcess> => {
      const port = await freePort();
      const worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), JOB_LEASE_TTL_SEC: String(LEASE_SEC), LOG_LEVEL: 'warn' }), '/readyz');
      workers.push(worker);
      return worker;
    };
    const publish = async (): Promise<string> => {
      const jobId = randomUUID();
      await seedJob(world.db, jobId, mapped);
      const body = jobBody(jobId, mapped);
      publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
      return jobId;
    };
    /** The lease owner is `<host>:<pid>:<random>`; the Workers run as direct children, so the pid names the process. */
    const ownerPid = (doc: Doc | undefined): number => Number(((doc?.lease as { owner?: string } | undefined)?.owner ?? '').split(':')[1]);
    const spoolFilesOf = (jobId: string): { path: string; size: number }[] =>
      readdirSync(world.spoolDir, { recursive: true, encoding: 'utf8' })
        .filter((path) => path.split('/').pop()?.startsWith(jobId))
        .flatMap((path) => {
          const info = statSync(join(world.spoolDir, path), { throwIfNoEntry: false });
          return info?.isFile() ? [{ path, size: info.size }] : [];
        });
    /** Multipart uploads s3rver holds for the job that were never completed nor aborted, with their part counts. */
    const openUploadsOf = (jobId: string): number[] => {
      const uploads: number[] = [];
      for (const path of readdirSync(world.s3Dir, { recursive: true, encoding: 'utf8' })) {
        if (!path.endsWith('/key') || !path.includes('uploads')) continue;
        if (!readFileSync(join(world.s3Dir, path), 'utf8').includes(jobId)) continue;
        const dir = join(world.s3Dir, path, '..');
        uploads.push(readdirSync(dir).filter((name) => /^\d+$/.test(name)).length);
      }
      return uploads;
    };
    const eventsOf = (jobId: string) => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId);
    const ended = (jobId: string, ms: number) => until(async () => {
      const doc = await jobDoc(world, jobId);
      const pending = (doc?.metadata as Doc | undefined)?.terminalEventPending;
      return doc && ['completed', 'failed', 'canceled'].includes(String(doc.status)) && !pending ? doc : undefined;
    }, ms, `job ${jobId} to end`);

    afterAll(async () => {
      for (const worker of workers) await worker.stop();
    });

    it(`${TRIALS} Workers SIGKILLed at a random point of a ${ROWS}-row job: each job completed once, by the other Worker`, async () => {
      await startWorker();
      await startWorker();

      // The length of an undisturbed job, from its lease to its end: the range the kill point is drawn from.
      // Two jobs (one per Worker, the broker alternates), the shorter counts: a Worker's first job runs cold.
      const baselines: number[] = [];
      for (let i = 0; i < 2; i += 1) {
        const baselineId = await publish();
        const leasedAt = await until(async () => ((await jobDoc(world, baselineId))?.lease ? Date.now() : undefined), 120_000, 'the baseline lease');
        const baselineDoc = await ended(baselineId, 600_000);
        expect({ status: baselineDoc.status, error: (baselineDoc.metadata as Doc).error }).toEqual({ status: 'completed', error: undefined });
        baselines.push(Date.now() - leasedAt);
      }
      const baselineMs = Math.min(...baselines);
      report('kill -9 Worker: baseline jobs', { rows: ROWS, leaseToEndMs: baselines });

      const trials: Doc[] = [];
      let missed = 0;
      while (trials.length < TRIALS) {
        const jobId = await publish();
        const leased = await until(async () => {
          const doc = await jobDoc(world, jobId);
          return doc?.status === 'processing' && doc.lease ? doc : undefined;
        }, 120_000, `job ${jobId} to be leased`);
        const victimPid = ownerPid(leased);
        const victim = workers.find((w) => w.child.pid === victimPid);
        if (!victim) throw new Error(`job ${jobId} is leased by ${String((leased.lease as Doc).owner)}, not by one of the bench's Workers`);
        // A random point of the job: uniform over 95% of an undisturbed job's length (the kill point under test).
        const killAfterMs = Math.floor(Math.random() * 0.95 * baselineMs);
        await delay(killAfterMs);
        const before = await jobDoc(world, jobId);
        if (before?.status !== 'processing' || ownerPid(before) !== victimPid) {
          // Finished (or changed hands) before the kill point: not a trial; the job still has to end well.
          missed += 1;
          report('kill -9 Worker: kill point after the job', { killAfterMs, status: before?.status, leasedBy: ownerPid(before) === victimPid ? 'victim' : 'another' });
          const missedDoc = await ended(jobId, 600_000);
          expect({ status: missedDoc.status, error: (missedDoc.metadata as Doc).error }).toEqual({ status: 'completed', error: undefined });
          continue;
        }
        const atKill = {
          rowsSoFar: Number((before.progress as Doc | undefined)?.rows_so_far ?? 0),
          spoolBytes: spoolFilesOf(jobId).reduce((sum, f) => sum + f.size, 0),
          partsUploaded: openUploadsOf(jobId).reduce((sum, n) => sum + n, 0),
        };
        victim.child.kill('SIGKILL');
        const killedAt = Date.now();
        await victim.stop();
        workers.splice(workers.indexOf(victim), 1);

        // The other Worker gets the killed Worker's delivery back, watches the lease, and takes over once it lapses.
        const taken = await until(async () => {
          const doc = await jobDoc(world, jobId);
          if (doc?.status !== 'processing') return { by: 'ended before a takeover', doc };
          return ownerPid(doc) !== victimPid && doc.lease ? { by: String(ownerPid(doc)), doc } : undefined;
        }, 120_000, `job ${jobId} to be taken over`);
        const takeoverMs = Date.now() - killedAt;
        const doc = await ended(jobId, 600_000);
        const endMs = Date.now() - killedAt;
        const spoolLeftByVictim = spoolFilesOf(jobId).length;
        const uploadsLeft = openUploadsOf(jobId);

        // A Worker started on the spool volume removes what dead processes left there.
        await startWorker();
        const spoolAfterRestart = spoolFilesOf(jobId).length;
        await until(() => (eventsOf(jobId).length > 0 ? true : undefined), 30_000, 'the terminal event');
        const events = eventsOf(jobId);
        const eventIds = [...new Set(events.map((e) => `${e.fields.routingKey} ${String(e.properties.headers?.['ce-id'])}`))];
        const objects = (await listObjects(world)).filter((key) => key.includes(jobId));
        let wholeObject = false;
        if (objects.length === 1) {
          const { plaintext, hmac } = await readResult(world, objects[0]);
          const rows = (JSON.parse(plaintext.toString('utf8')) as Record<string, Record<string, unknown[]>>).src?.[table]?.length;
          wholeObject = hmac === doc.result_hmac && rows === ROWS;
        }
        const trial = {
          trial: trials.length + 1, killAfterMs, ...atKill, takenOverBy: taken.by === 'ended before a takeover' ? taken.by : 'survivor',
          takeoverMs, endMs, status: doc.status, error: (doc.metadata as Doc).error, eventMessages: events.length, eventIds, objects: objects.length, wholeObject,
          spoolLeftByVictim, spoolAfterRestart, openUploadsLeft: uploadsLeft.length, openUploadParts: uploadsLeft.reduce((s, n) => s + n, 0),
        };
        report('kill -9 Worker: trial', trial);
        trials.push(trial);
      }

      const ok = trials.filter((t) => t.status === 'completed' && (t.eventIds as string[]).length === 1 && t.objects === 1 && t.wholeObject && t.spoolAfterRestart === 0);
      const takeovers = trials.filter((t) => t.takenOverBy === 'survivor');
      report('kill -9 Worker: totals', {
        trials: trials.length, missedKillPoints: missed, completedCleanly: ok.length, takenOver: takeovers.length,
        takeoverMs: summary(takeovers.map((t) => t.takeoverMs as number)), killToEndMs: summary(trials.map((t) => t.endMs as number)),
        jobsWithMoreThanOneEventMessage: trials.filter((t) => (t.eventMessages as number) > 1).length,
        trialsLeavingAnOpenMultipartUpload: trials.filter((t) => (t.openUploadsLeft as number) > 0).length,
        openUploadPartsLeft: trials.reduce((s, t) => s + (t.openUploadParts as number), 0),
      });
      for (const t of trials) {
        expect({ trial: t.trial, status: t.status, eventIds: (t.eventIds as string[]).length, objects: t.objects, wholeObject: t.wholeObject, spoolAfterRestart: t.spoolAfterRestart })
          .toEqual({ trial: t.trial, status: 'completed', eventIds: 1, objects: 1, wholeObject: true, spoolAfterRestart: 0 });
      }
      const queue = await world.channel.checkQueue(world.workQueue);
      expect(queue.messageCount).toBe(0);
    });
  });

  describe('the Manager killed between insert and publish', () => {
    const rabbit = new FaultProxy(5672);
    let db: Db;
    let dbName: string;
    let queue: string;
    let manager: AppProcess | undefined;
    /** Every message the Managers published to the work queue, by job id. */
    const dispatched = new Map<string, number>();
    /** When each message arrived (ms since the bench's start), by job id. */
    const arrivals = new Map<string, number[]>();
    const benchStarted = Date.now();

    const startManager = async (): Promise<AppProcess> => {
      const port = await freePort();
      return startApp('manager', port, managerEnv(world.mongo.uri, port, {
        APP_ENC_KEY: MASTER_KEY.toString('base64'),
        MONGO_NAME: dbName,
        RABBITMQ_HOST: '127.0.0.1',
        RABBITMQ_PORT_AMQP: String(rabbit.port),
        RABBITMQ_FETCHER_WORK_QUEUE: queue,
        // The sweep looks every second for jobs stored at least 2 s ago that were never dispatched (defaults 30 s and 60 s).
        DISPATCH_SWEEP_INTERVAL_SEC: '1',
        DISPATCH_SWEEP_MIN_AGE_SEC: '2',
        // No Worker runs these jobs: without this, a job still pending 600 s after its dispatch is re-dispatched
        // (by design, docs/api.md), which a run of 20 trials outlasts. The bench measures the first dispatch only.
        DISPATCH_REDISPATCH_AFTER_SEC: '86400',
      }), '/readyz');
    };
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> => {
      const response = await fetch(`${manager!.baseUrl}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const jobRequest = (marker: string) => ({ dataRequest: { mappedFields: { 'pg-main': { [table]: ['id'] } } }, metadata: { source: 'reporter', kill9: marker } });
    const byMarker = (marker: string) => db.collection('job').findOne({ 'metadata.kill9': marker });
    const idOf = (doc: Doc): string => {
      const hex = Buffer.from((doc._id as { buffer: Uint8Array }).buffer).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
    /**
     * The job's message has arrived and its Manager has recorded the dispatch. Waiting for the record matters: the
     * broker delivers the message before its confirm reaches the Manager, and a proxy made half-open in between
     * drops the confirm, so the sweep publishes the job again once its claim lapses (at least once, by design).
     */
    const waitDispatched = (jobId: string) => until(async () => {
      if ((dispatched.get(jobId) ?? 0) === 0) return undefined;
      const doc = await db.collection('job').findOne({ _id: uuidBinary(jobId) } as never);
      return doc?.dispatched_at instanceof Date ? true : undefined;
    }, 180_000, `job ${jobId} to be dispatched`);

    beforeAll(async () => {
      dbName = `kill9_mgr_${world.id}`;
      db = world.mongoClient.db(dbName);
      queue = `kill9.${world.id}.manager-queue`;
      await world.channel.assertQueue(queue, { durable: true, arguments: { 'x-dead-letter-exchange': 'fetcher.dlx', 'x-dead-letter-routing-key': 'fetcher.dlq.key' } });
      await world.channel.consume(queue, (msg) => {
        if (!msg) return;
        const jobId = String(msg.properties.headers?.jobId ?? '');
        dispatched.set(jobId, (dispatched.get(jobId) ?? 0) + 1);
        arrivals.set(jobId, [...(arrivals.get(jobId) ?? []), Date.now() - benchStarted]);
      }, { noAck: true });
      await rabbit.start();
    });

    afterAll(async () => {
      await manager?.stop();
      await rabbit.close();
      await world.channel.deleteQueue(queue).catch(() => undefined);
    });

    it(`${TRIALS} Managers SIGKILLed after the insert, before the publish: every job dispatched exactly once`, async () => {
      manager = await startManager();
      expect(await call('POST', '/v1/management/connections', postgresConnection('pg-main'), { 'X-Product-Name': 'reporter' })).toBe(201);
      // A first job through the healthy proxy: it opens the Manager's publishing channel, as a running Manager has.
      const first = randomUUID();
      expect(await call('POST', '/v1/fetcher', jobRequest(first))).toBe(202);
      const ids = [idOf((await byMarker(first))!)];
      await waitDispatched(ids[0]);

      const trials: Doc[] = [];
      for (let i = 1; i <= TRIALS; i += 1) {
        rabbit.halfOpen();
        const marker = randomUUID();
        const answer = call('POST', '/v1/fetcher', jobRequest(marker)).then((status) => String(status), (error: unknown) => (error instanceof Error ? error.message : 'error'));
        const stored = await until(() => byMarker(marker).then((doc) => doc ?? undefined), 60_000, 'the job to be stored');
        const undispatchedAtKill = stored.dispatched_at === null || stored.dispatched_at === undefined;
        manager.child.kill('SIGKILL');
        const killedAt = Date.now();
        await manager.stop();
        const clientSaw = await answer;
        await rabbit.heal();
        const jobId = idOf(stored);
        ids.push(jobId);
        const messagesBeforeRestart = dispatched.get(jobId) ?? 0;

        manager = await startManager();
        const readyMs = Date.now() - killedAt;
        await waitDispatched(jobId);
        const dispatchMs = Date.now() - killedAt;
        const trial = { trial: i, undispatchedAtKill, clientSaw, messagesBeforeRestart, restartReadyMs: readyMs, killToDispatchMs: dispatchMs, readyToDispatchMs: dispatchMs - readyMs };
        report('kill -9 Manager: trial', trial);
        trials.push(trial);
      }

      // The last Manager stops (its sweep with it); the consumer has then seen every message published, since the
      // broker delivers on this channel before it answers the queue check.
      await manager.stop();
      manager = undefined;
      expect((await world.channel.checkQueue(queue)).messageCount).toBe(0);
      const docs = await Promise.all(ids.map((id) => db.collection('job').findOne({ _id: uuidBinary(id) } as never)));
      const counts = ids.map((id) => dispatched.get(id) ?? 0);
      report('kill -9 Manager: totals', {
        trials: trials.length, jobs: ids.length, undispatchedAtKill: trials.filter((t) => t.undispatchedAtKill).length,
        dispatchedOnce: counts.filter((n) => n === 1).length, dispatchedTwiceOrMore: counts.filter((n) => n > 1).length, neverDispatched: counts.filter((n) => n === 0).length,
        killToDispatchMs: summary(trials.map((t) => t.killToDispatchMs as number)), readyToDispatchMs: summary(trials.map((t) => t.readyToDispatchMs as number)),
        clientSaw: [...new Set(trials.map((t) => t.clientSaw))],
        notOnce: ids.filter((id) => (dispatched.get(id) ?? 0) !== 1).map((id) => ({ job: ids.indexOf(id), arrivalsMs: arrivals.get(id) ?? [] })),
      });
      expect(trials.every((t) => t.undispatchedAtKill && t.messagesBeforeRestart === 0)).toBe(true);
      expect(counts).toEqual(ids.map(() => 1));
      expect(docs.map((d) => ({ status: d?.status, dispatched: d?.dispatched_at instanceof Date }))).toEqual(ids.map(() => ({ status: 'pending', dispatched: true })));
    });

  });
});
