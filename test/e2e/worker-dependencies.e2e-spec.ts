import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { FaultProxy } from '@fetcher/platform/testing';
import {
  jobBody, jobDoc, publishJob, seedConnection, seedJob, signedHeaders, startWorkerWorld, until, type WorkerWorld,
} from './support/worker-harness';

interface Readyz {
  readonly status: number;
  readonly checks: Record<string, { status: string; error?: string }>;
}

/**
 * A Worker whose MongoDB is not there takes no work: started before MongoDB listens, it waits, and
 * once MongoDB answers it connects and runs the job that waited in the queue; when MongoDB goes away
 * later it stops consuming until it is back. MongoDB is the test server behind a TCP forwarder on a
 * fixed port, so "MongoDB comes up" is the forwarder starting to listen: the job is seeded before,
 * and the Worker cannot race the seeding.
 */
describe('worker: dependencies down at startup and later', () => {
  let world: WorkerWorld;
  let pg: Client;
  let worker: AppProcess | undefined;
  const mongoPort = { value: 0 };
  let mongo: FaultProxy;
  const schema = `wdep_${randomUUID().slice(0, 8)}`;
  const mapped = { pg: { [`${schema}.small`]: ['id'] } };

  const readyz = async (): Promise<Readyz> => {
    const res = await fetch(`${worker!.baseUrl}/readyz`);
    const body = (await res.json()) as { checks: Readyz['checks'] };
    return { status: res.status, checks: body.checks };
  };
  const deadJobIds = () => world.deadLetters.map((m) => String(m.properties.headers?.jobId));
  const queue = () => world.channel.checkQueue(world.workQueue);
  const publish = async (): Promise<string> => {
    const jobId = randomUUID();
    await seedJob(world.db, jobId, mapped);
    const body = jobBody(jobId, mapped);
    publishJob(world, body, signedHeaders(body, jobId, world.workQueue));
    return jobId;
  };
  const completed = (jobId: string) => until(async () => {
    const doc = await jobDoc(world, jobId);
    return doc?.status === 'completed' ? doc : undefined;
  }, 60_000, `job ${jobId} to complete`).catch((error: unknown) => {
    process.stderr.write(worker?.output() ?? '');
    throw error;
  });
  const pausedLines = () => (worker?.output() ?? '').split('\n').filter((line) => line.includes('work queue consumer paused')).length;

  beforeAll(async () => {
    world = await startWorkerWorld();
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${schema}.small AS SELECT g AS id FROM generate_series(1, 5) g`);
    await seedConnection(world.db, { configName: 'pg', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
    mongo = new FaultProxy(world.mongo.port);
    mongoPort.value = await freePort();
  });

  afterAll(async () => {
    await worker?.stop();
    await mongo?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
    await world?.close();
  });

  it('started while MongoDB is unreachable, takes no message until MongoDB answers, then runs the waiting job', async () => {
    const port = await freePort();
    // /metrics answers as soon as the process listens; /health would wait for the self-probe.
    worker = await startApp('worker', port, world.env({ HEALTH_PORT: String(port), MONGO_PORT: String(mongoPort.value) }), '/metrics');
    const jobId = await publish();

    // The Worker is connected to RabbitMQ and knows MongoDB is down.
    await until(async () => {
      const r = await readyz();
      return r.checks.rabbitmq?.status === 'up' && r.checks.mongodb?.status === 'down' ? r : undefined;
    }, 30_000, 'rabbitmq up and mongodb down');
    // Either it took the message (and could only dead-letter it), or it said it waits.
    await until(() => world.deadLetters.length > 0 || pausedLines() > 0 || undefined, 30_000, 'the worker to take or refuse work');
    expect(deadJobIds()).toEqual([]);
    expect(await queue()).toMatchObject({ messageCount: 1, consumerCount: 0 });
    expect((await jobDoc(world, jobId))?.status).toBe('pending');

    // The first connect has failed (server selection gave up), which is when the driver closes the client.
    await until(async () => (worker!.output().includes('MongoDB could not be reached')
      || (await readyz()).checks.mongodb?.error?.includes('Topology is closed')) || undefined, 30_000, 'the first connect to fail');
    await mongo.start(mongoPort.value);
    await until(async () => ((await readyz()).status === 200 ? true : undefined), 60_000, '/readyz 200');
    await completed(jobId);
    expect(deadJobIds()).toEqual([]);
    expect((await queue()).consumerCount).toBe(1);
  });

  it('stops consuming while MongoDB is gone and resumes when it is back', async () => {
    const before = pausedLines();
    await mongo.close();
    await until(() => pausedLines() > before || undefined, 30_000, 'the consumer to pause');
    expect((await queue()).consumerCount).toBe(0);
    const jobId = await publish();
    expect(await queue()).toMatchObject({ messageCount: 1, consumerCount: 0 });

    await mongo.start(mongoPort.value);
    await completed(jobId);
    expect(deadJobIds()).toEqual([]);
  });
});
