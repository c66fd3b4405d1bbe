import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { connect } from 'amqplib';
import { type AppProcess, freePort, startApp } from '../../test/e2e/support/app-process';
import {
  jobBody, jobDoc, publishJob, seedConnection, seedJob, signedHeaders, startWorkerWorld, until, type WorkerWorld,
} from '../../test/e2e/support/worker-harness';
import { report } from '../../test/chaos/support/objectives';
import { PrivateRabbit } from './private-rabbit';

/** Jobs in the burst (BURST_JOBS overrides, a bench knob). */
const BURST = Number(process.env.BURST_JOBS ?? '200');

/**
 * A burst of jobs into a Worker whose RabbitMQ (a private node of this bench) is stopped and started
 * again while the burst runs: every job ends, completed, in one terminal state with one terminal
 * event; none is lost (left pending with its message gone) or stuck.
 */
describe('bench: broker restart during a burst', () => {
  jest.setTimeout(900_000);
  let rabbit: PrivateRabbit;
  let world: WorkerWorld;
  let worker: AppProcess;
  let pg: Client;
  const schema = `chaosb_${randomUUID().slice(0, 8)}`;
  const mapped = { src: { [`${schema}.items`]: ['id'] } };
  const eventsQueue = `bench-events-${randomUUID()}`;

  beforeAll(async () => {
    rabbit = new PrivateRabbit(await freePort(), await freePort());
    const firstStartMs = await rabbit.start();
    report('private RabbitMQ first start', { firstStartMs });
    world = await startWorkerWorld({ amqpPort: rabbit.port });
    // The world's own consumers die with the broker; this durable queue keeps the events across the restart.
    world.amqp.on('error', () => undefined);
    world.channel.on('error', () => undefined);
    await world.channel.assertQueue(eventsQueue, { durable: true });
    await world.channel.bindQueue(eventsQueue, world.eventsExchange, 'job.*');
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items AS SELECT g AS id FROM generate_series(1, 2000) g`);
    await seedConnection(world.db, { configName: 'src', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
    const port = await freePort();
    worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port) }), '/readyz');
  });

  afterAll(async () => {
    await worker?.stop();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close().catch(() => undefined);
    await rabbit?.destroy();
  });

  it(`${BURST} jobs, the broker restarted mid-burst: 0 lost, 0 stuck, one terminal state and one event each`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < BURST; i += 1) {
      const jobId = randomUUID();
      await seedJob(world.db, jobId, mapped);
      const body = jobBody(jobId, mapped);
      publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
      ids.push(jobId);
    }
    // The world's database holds only this burst's jobs.
    const done = async () => world.db.collection('job').countDocuments({ status: { $in: ['completed', 'failed'] } });
    // Restart once a quarter of the burst has ended, so the rest is queued or running across it.
    await until(async () => ((await done()) >= BURST / 4 ? true : undefined), 300_000, 'a quarter of the burst').catch((error: unknown) => {
      process.stderr.write(worker.output().slice(-4000));
      throw error;
    });
    const endedBeforeRestart = await done();
    const downAt = Date.now();
    const stopMs = await rabbit.stop();
    const restartMs = await rabbit.start();
    const brokerDownMs = Date.now() - downAt;
    const drainStarted = Date.now();
    await until(async () => ((await done()) === BURST ? true : undefined), 600_000, 'every job to end');
    const drainMs = Date.now() - drainStarted;

    const statuses = new Map<string, number>();
    for (const id of ids) {
      const status = String((await jobDoc(world, id))?.status);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    // Every terminal event, read from the durable queue once the Worker has had time to publish them all.
    const model = await connect(`amqp://guest:guest@127.0.0.1:${rabbit.port}`);
    const channel = await model.createChannel();
    const events = new Map<string, string[]>();
    await until(async () => {
      for (;;) {
        const msg = await channel.get(eventsQueue, { noAck: true });
        if (!msg) break;
        const subject = msg.properties.headers?.['ce-subject']?.toString() ?? '';
        events.set(subject, [...(events.get(subject) ?? []), msg.fields.routingKey]);
      }
      return ids.every((id) => events.has(id)) ? true : undefined;
    }, 60_000, 'an event per job');
    const work = await channel.checkQueue(world.workQueue);
    await channel.deleteQueue(eventsQueue);
    await model.close();

    const duplicates = ids.filter((id) => (events.get(id) ?? []).length !== 1);
    report('broker restart during a burst', {
      burst: BURST, endedBeforeRestart, stopMs, restartMs, brokerDownMs, drainMsAfterRestart: drainMs,
      statuses: Object.fromEntries(statuses), jobsWithOtherThanOneEvent: duplicates.length, leftInQueue: work.messageCount,
    });
    expect(Object.fromEntries(statuses)).toEqual({ completed: BURST });
    expect(duplicates).toEqual([]);
    expect(work.messageCount).toBe(0);
  });
});

