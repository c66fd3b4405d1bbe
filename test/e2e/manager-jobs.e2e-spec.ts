import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import amqplib, { type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { MongoClient } from 'mongodb';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';
import { StallingProxy } from './support/stalling-proxy';

const INTERNAL_PG = {
  DATASOURCE_PGI_CONFIG_NAME: 'pg-internal',
  DATASOURCE_PGI_TYPE: 'POSTGRESQL',
  DATASOURCE_PGI_HOST: '127.0.0.1',
  DATASOURCE_PGI_PORT: '5432',
  DATASOURCE_PGI_DATABASE: 'test',
  DATASOURCE_PGI_USER: 'postgres',
  RABBITMQ_HOST: '127.0.0.1',
};

/** Re-checks `condition` until it holds, within a bound (the apps report only through HTTP, AMQP and MongoDB). */
async function until<T>(condition: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function signatureOf(masterKey: string, message: GetMessage, queue: string): string {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'base64'), Buffer.alloc(0), 'fetcher-internal-hmac-v1', 32));
  const jobId = (JSON.parse(message.content.toString('utf8')) as { jobId: string }).jobId;
  return createHmac('sha256', key)
    .update(`${String(message.properties.headers?.t)}\nv1\n\n${jobId}\n\n${queue}\n`, 'utf8')
    .update(message.content)
    .digest('hex');
}

describe('manager: extraction jobs end to end', () => {
  let mongo: MongoTestServer;
  let client: MongoClient;
  let broker: ChannelModel;
  let channel: Channel;
  const apps: AppProcess[] = [];
  const queues: string[] = [];

  beforeAll(async () => {
    mongo = await startMongoTestServer();
    client = await MongoClient.connect(mongo.uri);
    broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    // A failed assertion can leave the channel closed by the broker; without listeners that close
    // would be thrown as an unhandled error into whichever suite runs next.
    broker.on('error', () => undefined);
    channel = await broker.createChannel();
    channel.on('error', () => undefined);
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    // A fresh channel: the test's own may have been closed by a failed get.
    const cleanup = await broker.createChannel();
    cleanup.on('error', () => undefined);
    for (const queue of queues) await cleanup.deleteQueue(queue);
    await broker?.close();
    await client?.close();
    await mongo?.close();
  });

  async function manager(env: Record<string, string>): Promise<AppProcess> {
    const app = await startApp('manager', Number(new URL(`http://${env.SERVER_ADDRESS}`).port), env, '/readyz');
    apps.push(app);
    return app;
  }

  const post = (app: AppProcess, body: unknown, requestId?: string) =>
    fetch(`${app.baseUrl}/v1/fetcher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(requestId ? { 'x-request-id': requestId } : {}) },
      body: JSON.stringify(body),
    });

  it('creates a job over HTTP and hands the Worker a signed, persistent message', async () => {
    const env = managerEnv(mongo.uri, await freePort(), INTERNAL_PG);
    queues.push(env.RABBITMQ_FETCHER_WORK_QUEUE);
    const app = await manager(env);
    const body = { dataRequest: { mappedFields: { 'pg-internal': { orders: ['id', 'amount'] } } }, metadata: { source: 'reporter' } };

    const created = await post(app, body, 'e2e-request-1');
    expect(created.status).toBe(202);
    expect(created.headers.get('x-request-id')).toBe('e2e-request-1');
    const { jobId } = (await created.json()) as { jobId: string };
    const again = await post(app, body);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ jobId, message: 'Duplicate request detected - returning existing job' });

    const message = await until(async () => channel.get(env.RABBITMQ_FETCHER_WORK_QUEUE, { noAck: true }), 'the job message');
    expect(message.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json', headers: { jobId, 'X-Request-Id': 'e2e-request-1' } });
    expect(message.properties.headers?.['x-message-signature']).toBe(signatureOf(env.APP_ENC_KEY, message, env.RABBITMQ_FETCHER_WORK_QUEUE));
    expect(await channel.get(env.RABBITMQ_FETCHER_WORK_QUEUE)).toBe(false);

    const read = await fetch(`${app.baseUrl}/v1/fetcher/${jobId}`);
    expect(await read.json()).toMatchObject({ id: jobId, status: 'pending', metadata: { source: 'reporter' } });
  });

  it('recovers a job whose Manager was killed between the insert and the publish', async () => {
    const proxy = new StallingProxy(5672);
    await proxy.start();
    try {
      const shared = { ...INTERNAL_PG, MONGO_NAME: `e2e_${randomUUID().replace(/-/g, '').slice(0, 16)}`, RABBITMQ_FETCHER_WORK_QUEUE: `fetcher.e2e.${randomUUID()}` };
      queues.push(shared.RABBITMQ_FETCHER_WORK_QUEUE);
      const firstEnv = managerEnv(mongo.uri, await freePort(), { ...shared, RABBITMQ_PORT_AMQP: String(proxy.port) });
      const first = await manager(firstEnv);
      const jobs = client.db(shared.MONGO_NAME).collection('job');

      // The broker stops answering: the Manager stores the job, then waits for a confirm that never comes.
      proxy.stall();
      const pending = post(first, { dataRequest: { mappedFields: { 'pg-internal': { orders: ['id'] } } }, metadata: { source: 'reporter' } }).catch(() => undefined);
      const stored = await until(() => jobs.findOne({}), 'the stored job');
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      await pending;
      expect(await jobs.findOne({ _id: stored._id })).toMatchObject({ status: 'pending', dispatched_at: null, dispatch_attempts: 0 });
      proxy.restore();

      // A fresh Manager's sweep finds it and publishes it.
      const second = await manager(
        managerEnv(mongo.uri, await freePort(), { ...shared, APP_ENC_KEY: firstEnv.APP_ENC_KEY, DISPATCH_SWEEP_INTERVAL_SEC: '1', DISPATCH_SWEEP_MIN_AGE_SEC: '1' }),
      );
      // The dispatch mark is set only after the broker confirmed the publish, so the work queue
      // exists from then on (a get on a queue not declared yet would close the channel).
      const dispatched = await until(async () => (await jobs.findOne({ _id: stored._id, dispatched_at: { $ne: null } })) ?? undefined, 'the dispatch mark');
      expect(dispatched).toMatchObject({ status: 'pending', dispatch_attempts: 2, dispatch_lock_until: null });
      const message = await until(async () => channel.get(shared.RABBITMQ_FETCHER_WORK_QUEUE, { noAck: true }), 'the republished message');
      const jobId = (JSON.parse(message.content.toString('utf8')) as { jobId: string }).jobId;
      expect(message.properties.headers?.jobId).toBe(jobId);
      expect(message.properties.headers?.['x-message-signature']).toBe(signatureOf(firstEnv.APP_ENC_KEY, message, shared.RABBITMQ_FETCHER_WORK_QUEUE));
      const metrics = await (await fetch(`${second.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(/^fetcher_manager_dispatch_sweep_republished_total 1$/m);
      expect(await channel.get(shared.RABBITMQ_FETCHER_WORK_QUEUE)).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});
