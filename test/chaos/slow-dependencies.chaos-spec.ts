import { randomUUID } from 'node:crypto';
import { FaultProxy } from '@fetcher/platform/testing';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from '../e2e/support/app-process';
import { managerEnv } from '../e2e/support/manager-env';
import { jobDoc, MASTER_KEY, startWorkerWorld, until, type WorkerWorld } from '../e2e/support/worker-harness';
import { type Figures, figures, load, OBJECTIVE, report, timeUntil, window } from './support/objectives';

/** The internal datasource both services know, by environment. */
const DATASOURCE = {
  DATASOURCE_CHAOS_CONFIG_NAME: 'pg-chaos',
  DATASOURCE_CHAOS_TYPE: 'POSTGRESQL',
  DATASOURCE_CHAOS_HOST: '127.0.0.1',
  DATASOURCE_CHAOS_PORT: '5432',
  DATASOURCE_CHAOS_DATABASE: 'test',
  DATASOURCE_CHAOS_USER: 'postgres',
};

/**
 * The Manager and the Worker together, RabbitMQ and MongoDB each behind a fault proxy shared by both
 * services. Each dependency in turn gets 500 ms more round trip (250 ms each way on every chunk)
 * for the fault window while clients create jobs: the calls succeed, every job accepted completes
 * with one terminal event, and the latency the fault adds is bounded.
 */
describe('chaos: RabbitMQ and MongoDB answer 500 ms slower', () => {
  let world: WorkerWorld;
  let pg: Client;
  let manager: AppProcess;
  let worker: AppProcess;
  let rabbit: FaultProxy;
  let mongo: FaultProxy;
  const schema = `chaos_${randomUUID().slice(0, 8)}`;
  const mappedFields = { 'pg-chaos': { [`${schema}.items`]: ['id'] } };
  let baseline: Figures;

  /** Creates jobs for the fault window; the figures of the calls and the ids of the jobs accepted. */
  const createJobs = async (stop: Promise<unknown>) => {
    const ids: string[] = [];
    const samples = await load(async () => {
      const res = await fetch(`${manager.baseUrl}/v1/fetcher`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dataRequest: { mappedFields }, metadata: { source: 'chaos', nonce: randomUUID() } }),
      });
      if (res.status === 202) ids.push(((await res.json()) as { jobId: string }).jobId);
      return res.status;
    }, stop, 2, (status) => status === 202);
    return { ids, figures: figures(samples) };
  };
  const terminalEvents = (jobId: string) => world.events.filter((e) => e.properties.headers?.['ce-subject']?.toString() === jobId);

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items AS SELECT g AS id FROM generate_series(1, 100) g`);
    rabbit = new FaultProxy(5672);
    mongo = new FaultProxy(world.mongo.port);
    await rabbit.start();
    await mongo.start();
    const workerPort = await freePort();
    worker = await startApp('worker', workerPort, world.env({
      ...DATASOURCE, HEALTH_PORT: String(workerPort), MONGO_PORT: String(mongo.port), RABBITMQ_PORT_AMQP: String(rabbit.port),
    }), '/readyz');
    const managerPort = await freePort();
    manager = await startApp('manager', managerPort, managerEnv(`mongodb://127.0.0.1:${mongo.port}`, managerPort, {
      ...DATASOURCE,
      APP_ENC_KEY: MASTER_KEY.toString('base64'),
      MONGO_NAME: `worker_e2e_${world.id}`,
      RABBITMQ_HOST: '127.0.0.1',
      RABBITMQ_PORT_AMQP: String(rabbit.port),
      RABBITMQ_FETCHER_WORK_QUEUE: world.workQueue,
      RABBITMQ_JOB_EVENTS_EXCHANGE: world.eventsExchange,
    }), '/readyz');
    baseline = (await createJobs(window())).figures;
  });

  afterAll(async () => {
    await manager?.stop();
    await worker?.stop();
    await rabbit?.close();
    await mongo?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  /**
   * What the fault may add to the p99 of job creation. RabbitMQ: the objective (one publish and its
   * confirm). MongoDB: creating a job takes several sequential MongoDB round trips, so 500 ms more on
   * each adds about 2 s; the absolute objective is missed there (docs/reliability.md has the figure).
   */
  const allowance = { rabbitmq: OBJECTIVE.p99Ms, mongodb: 4_000 } as const;

  for (const dependency of ['rabbitmq', 'mongodb'] as const) {
    it(`${dependency}: calls succeed, every accepted job completes once, the added p99 stays within ${allowance[dependency]} ms`, async () => {
      const proxy = dependency === 'rabbitmq' ? rabbit : mongo;
      proxy.shape({ latencyMs: 250 });
      const { ids, figures: during } = await createJobs(window());
      await proxy.heal();
      const healedAt = Date.now();
      const settleMs = await timeUntil(async () => {
        for (const id of ids) if ((await jobDoc(world, id))?.status !== 'completed') return false;
        return true;
      });
      await until(() => ids.every((id) => terminalEvents(id).length > 0) || undefined, 30_000, 'the terminal events');
      const events = ids.map((id) => terminalEvents(id).map((e) => e.fields.routingKey));
      report(`500 ms on ${dependency}`, { ...during, baselineP99Ms: baseline.p99Ms, jobs: ids.length, completedWithinMsOfHeal: Date.now() - healedAt, settleMs });

      expect(during.calls).toBeGreaterThan(2);
      expect(during.successRate).toBeGreaterThanOrEqual(OBJECTIVE.successRate);
      expect(during.p99Ms).toBeLessThan(baseline.p99Ms + allowance[dependency]);
      expect(events).toEqual(ids.map(() => ['job.completed']));
    });
  }
});
