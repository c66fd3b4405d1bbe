import { randomUUID } from 'node:crypto';
import { FaultProxy } from '@fetcher/platform/testing';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../e2e/support/app-process';
import { managerEnv } from '../e2e/support/manager-env';
import { MASTER_KEY, startWorkerWorld, until, type WorkerWorld } from '../e2e/support/worker-harness';
import { figures, load, OBJECTIVE, report, timeUntil, window } from './support/objectives';

type Doc = Record<string, unknown>;
type Dependency = 'mongodb' | 'rabbitmq' | 'postgresql';

/**
 * The Manager and the Worker with MongoDB, RabbitMQ and the source database (PostgreSQL, an internal
 * datasource) each behind a fault proxy. Each in turn is cut for the fault window (open connections
 * closed, new ones closed on arrival) while clients create jobs and earlier jobs are running.
 * Judged: the API calls (answered, and how fast), `/readyz` of both services through the fault,
 * recovery once the cut ends (both ready, a fresh job completes), and every job ending in exactly one
 * terminal state, with one terminal event for every job a client was given.
 */
describe('chaos: each dependency cut while jobs run', () => {
  let world: WorkerWorld;
  let pg: Client;
  let manager: AppProcess;
  let worker: AppProcess;
  const proxies = {} as Record<Dependency, FaultProxy>;
  const schema = `chaos_${randomUUID().slice(0, 8)}`;
  const mappedFields = { 'pg-cut': { [`${schema}.items`]: ['id', 'pad'] } };
  /** Every job a client was given (202), by scenario, for the last check. */
  const given = new Map<string, Dependency>();
  let baselineP99 = 0;

  const createJob = async (scenario: string): Promise<{ status: number; jobId?: string; body: string }> => {
    const res = await fetch(`${manager.baseUrl}/v1/fetcher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dataRequest: { mappedFields }, metadata: { source: 'chaos', scenario, nonce: randomUUID() } }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.text();
    return { status: res.status, body, jobId: res.status === 202 ? (JSON.parse(body) as { jobId: string }).jobId : undefined };
  };
  const readyz = async (app: AppProcess): Promise<{ status: number; checks: Record<string, { status: string }> }> => {
    const res = await fetch(`${app.baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    return { status: res.status, checks: ((await res.json()) as { checks: Record<string, { status: string }> }).checks };
  };
  /** A check that counts as fine: `skipped` and `n/a` are dependencies not configured (Redis here). */
  const fine = (status: string | undefined) => status === 'up' || status === 'skipped' || status === 'n/a';
  const allUp = async (app: AppProcess) => {
    const r = await readyz(app);
    return r.status === 200 && Object.values(r.checks).every((c) => fine(c.status));
  };
  const eventsOf = (jobId: string) => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId).map((e) => e.fields.routingKey);
  /**
   * A job's terminal events with one per event id: delivery is at least once (a publish whose confirm
   * was lost to the cut is sent again under the same `ce-id`, and consumers deduplicate on it).
   */
  const distinctEventsOf = (jobId: string) => {
    const byId = new Map<string, string>();
    for (const e of world.events) {
      if (e.properties.headers?.['ce-subject']?.toString() !== jobId) continue;
      byId.set(String(e.properties.headers?.['ce-id'] ?? e.properties.messageId ?? `no id ${byId.size}`), e.fields.routingKey);
    }
    return [...byId.values()];
  };
  const scenarioJobs = (scenario: string) => world.db.collection('job').find({ 'metadata.scenario': scenario } as never).toArray() as Promise<Doc[]>;
  const idOf = (doc: Doc): string => {
    const hex = Buffer.from((doc._id as { buffer: Uint8Array }).buffer).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    // About 2 MB of rows: a job takes a moment, so some are running when the cut comes.
    await pg.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items AS SELECT g AS id, repeat('x', 80) AS pad FROM generate_series(1, 20000) g`);
    proxies.mongodb = new FaultProxy(world.mongo.port);
    proxies.rabbitmq = new FaultProxy(5672);
    proxies.postgresql = new FaultProxy(5432);
    for (const proxy of Object.values(proxies)) await proxy.start();
    const datasource = {
      DATASOURCE_CUT_CONFIG_NAME: 'pg-cut', DATASOURCE_CUT_TYPE: 'POSTGRESQL', DATASOURCE_CUT_HOST: '127.0.0.1',
      DATASOURCE_CUT_PORT: String(proxies.postgresql.port), DATASOURCE_CUT_DATABASE: 'test', DATASOURCE_CUT_USER: 'postgres',
    };
    const workerPort = await freePort();
    worker = await startApp('worker', workerPort, world.env({
      ...datasource, HEALTH_PORT: String(workerPort), MONGO_PORT: String(proxies.mongodb.port), RABBITMQ_PORT_AMQP: String(proxies.rabbitmq.port),
    }), '/readyz');
    const managerPort = await freePort();
    manager = await startApp('manager', managerPort, managerEnv(`mongodb://127.0.0.1:${proxies.mongodb.port}`, managerPort, {
      ...datasource,
      APP_ENC_KEY: MASTER_KEY.toString('base64'),
      MONGO_NAME: `worker_e2e_${world.id}`,
      RABBITMQ_HOST: '127.0.0.1',
      RABBITMQ_PORT_AMQP: String(proxies.rabbitmq.port),
      RABBITMQ_FETCHER_WORK_QUEUE: world.workQueue,
      RABBITMQ_JOB_EVENTS_EXCHANGE: world.eventsExchange,
    }), '/readyz');
    // The same calls without a fault first: on a shared machine the fault is judged by what it adds.
    baselineP99 = figures(await load(async () => (await createJob('baseline')).status, window(), 2, (s) => s === 202)).p99Ms;
  });

  afterAll(async () => {
    await manager?.stop();
    await worker?.stop();
    for (const proxy of Object.values(proxies)) await proxy.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  /**
   * What the cut may add to the p99 of job creation. The objective, but for MongoDB: the Manager
   * waits for a server up to its 5 s selection timeout before it answers 500, so the fault adds about
   * 5 s there; the absolute objective is missed (docs/reliability.md has the figures).
   */
  const allowance = { mongodb: 7_000, rabbitmq: OBJECTIVE.p99Ms, postgresql: OBJECTIVE.p99Ms } as const;

  for (const dependency of ['mongodb', 'rabbitmq', 'postgresql'] as const) {
    it(`${dependency} cut: calls answered, /readyz truthful, back within the objective, every job ends once`, async () => {
      const proxy = proxies[dependency];
      const scenario = `cut-${dependency}`;
      await until(async () => ((await allUp(manager)) && (await allUp(worker))) || undefined, 60_000, 'both services ready');
      // Jobs under way when the cut comes.
      for (let i = 0; i < 4; i += 1) {
        const { jobId } = await createJob(scenario);
        if (jobId) given.set(jobId, dependency);
      }
      proxy.cut();
      const fault = window();
      const statuses: Record<string, number> = {};
      const refusals = new Set<string>();
      const calls = load(async () => {
        const { status, jobId, body } = await createJob(scenario);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status !== 202) refusals.add(`${status} ${String((JSON.parse(body) as { code?: string }).code)}`);
        if (jobId) given.set(jobId, dependency);
        return status;
      }, fault, 2, (status) => status === 202);
      // /readyz of each service, classified: 1 the cut dependency reported not up and the others up,
      // 2 everything up (not detected yet, or not checked), 3 another dependency reported not up, 0 no answer.
      const oddReadyz: string[] = [];
      const probe = (app: AppProcess) => load(async () => {
        const { checks } = await readyz(app).catch((error: unknown) => {
          oddReadyz.push(`${app === manager ? 'manager' : 'worker'}: ${error instanceof Error ? error.name : 'error'}`);
          throw error;
        });
        if (Object.entries(checks).some(([name, c]) => name !== dependency && !fine(c.status))) oddReadyz.push(`${app === manager ? 'manager' : 'worker'}: ${JSON.stringify(checks)}`);
        const others = Object.entries(checks).filter(([name]) => name !== dependency);
        if (others.some(([, c]) => !fine(c.status))) return 3;
        return checks[dependency] !== undefined && !fine(checks[dependency].status) ? 1 : 2;
      }, fault, 1, () => true);
      const [managerProbes, workerProbes] = await Promise.all([probe(manager), probe(worker)]);
      const samples = await calls;
      const during = figures(samples);
      proxy.restore();
      const healedAt = Date.now();
      // Waited for longer than the objective, so that a miss still gives its figure (asserted below).
      const readyMs = await timeUntil(async () => (await allUp(manager)) && (await allUp(worker)), 120_000, 'both services ready');
      // Recovery: both ready and a fresh job completed, counted from the end of the cut.
      let fresh: string | undefined;
      let freshAcceptedMs = 0;
      await timeUntil(async () => {
        if (fresh === undefined) {
          fresh = (await createJob(scenario)).jobId;
          freshAcceptedMs = Date.now() - healedAt;
        }
        return fresh !== undefined && eventsOf(fresh).includes('job.completed');
      }, 120_000, 'a fresh job to complete');
      const recoveryMs = Date.now() - healedAt;
      given.set(fresh!, dependency);

      // Every job of the scenario ends, in one terminal state; each job a client was given has one event.
      const endedMs = await timeUntil(async () => (await scenarioJobs(scenario)).every((d) => ['completed', 'failed', 'canceled'].includes(String(d.status))), 120_000, 'every job to end');
      const docs = await scenarioJobs(scenario);
      const accepted = docs.filter((d) => given.has(idOf(d)));
      await until(() => accepted.every((d) => eventsOf(idOf(d)).length > 0) || undefined, 60_000, 'the terminal events');
      const outcomes: Record<string, number> = {};
      for (const d of docs) {
        const error = (d.metadata as Doc).error;
        const key = `${String(d.status)}${given.has(idOf(d)) ? '' : ' (refused)'}${typeof error === 'string' ? `: ${error}` : ''}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
      const completed = accepted.filter((d) => d.status === 'completed').length;
      const codes = (probes: typeof managerProbes) => probes.map((p) => p.status);
      report(`${dependency} cut`, {
        ...during, baselineP99Ms: baselineP99, statuses, refusals: [...refusals], answered: samples.filter((s) => s.status !== 0).length,
        readyzManager: { samples: managerProbes.length, detected: codes(managerProbes).includes(1), wrong: codes(managerProbes).filter((c) => c === 3 || c === 0).length },
        readyzWorker: { samples: workerProbes.length, detected: codes(workerProbes).includes(1), wrong: codes(workerProbes).filter((c) => c === 3 || c === 0).length },
        oddReadyz, duplicateEvents: accepted.filter((d) => eventsOf(idOf(d)).length > 1).length,
        readyMs, freshAcceptedMs, recoveryMs, endedMs, jobs: docs.length, accepted: accepted.length, completed, outcomes,
      });

      // Every call was answered: accepted, or refused as documented (500 FET-0002, the job not handed
      // over). The latency objective, relative to the baseline of the same calls (MongoDB: see allowance).
      expect(samples.every((s) => s.status !== 0)).toBe(true);
      expect([...refusals].filter((r) => r !== '500 FET-0002')).toEqual([]);
      if (dependency === 'postgresql') expect(during.successRate).toBeGreaterThanOrEqual(OBJECTIVE.successRate);
      expect(during.p99Ms).toBeLessThan(baselineP99 + allowance[dependency]);
      expect(recoveryMs).toBeLessThan(OBJECTIVE.recoveryMs);
      // Truthful /readyz: never another dependency reported down, never unanswered; the cut one seen
      // down by both services when they depend on it (the source database is no readiness check).
      expect(codes(managerProbes).filter((c) => c === 3 || c === 0)).toEqual([]);
      expect(codes(workerProbes).filter((c) => c === 3 || c === 0)).toEqual([]);
      if (dependency !== 'postgresql') expect([codes(managerProbes).includes(1), codes(workerProbes).includes(1)]).toEqual([true, true]);
      // Jobs: MongoDB and RabbitMQ come back, so the jobs complete; a job that needed the source
      // database while it was cut fails, as documented: `[connect]` when it could not dial,
      // `[unavailable]` when the connection was lost mid-query.
      const asExpected = accepted.filter((d) => d.status === 'completed'
        || (dependency === 'postgresql' && d.status === 'failed' && /\[(unavailable|connect)\]/.test(String((d.metadata as Doc).error))));
      expect(asExpected.length / accepted.length).toBeGreaterThanOrEqual(OBJECTIVE.successRate);
      for (const d of accepted) expect(distinctEventsOf(idOf(d))).toEqual([`job.${String(d.status)}`]);
      for (const d of docs.filter((x) => !given.has(idOf(x)))) expect(eventsOf(idOf(d))).toEqual([]);
    });
  }
});
