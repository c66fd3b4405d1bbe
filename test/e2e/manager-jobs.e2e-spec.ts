import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import amqplib, { type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { MongoClient } from 'mongodb';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { INTERNAL_PG, managerEnv } from './support/manager-env';
import { FaultProxy } from '@fetcher/platform/testing';
import { postgresConnection, startTarget, type Target, TARGETS } from './support/targets';

/**
 * Extraction jobs through the Manager's HTTP API, against the production deployment and standalone
 * mode alike: creation, the request id, duplicates, reading a job back, and the error codes. (There
 * is no route that lists jobs.)
 *
 * Production only: the signed, persistent message on RabbitMQ, and the dispatch sweep republishing a
 * job whose Manager was killed (SIGKILL) while the broker stalled.
 */
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

const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'];

describe.each(TARGETS)('extraction job routes over HTTP (%s)', (name) => {
  let target: Target;

  beforeAll(async () => {
    target = await startTarget(name, { env: INTERNAL_PG });
  });
  afterAll(async () => {
    await target?.stop();
  });

  it('creates a job, echoes the request id, answers a duplicate with the same job and reads it back', async () => {
    const body = { dataRequest: { mappedFields: { 'pg-internal': { orders: ['id', 'amount'] } } }, metadata: { source: 'reporter', run: randomUUID() } };
    const created = await target.call('POST', '/v1/fetcher', body, { 'x-request-id': 'e2e-request-1' });
    expect(created).toMatchObject({ status: 202, body: { status: 'pending', message: 'Job created and queued for processing' } });
    expect(created.headers.get('x-request-id')).toBe('e2e-request-1');
    const jobId = created.body.jobId as string;

    const again = await target.call('POST', '/v1/fetcher', body);
    expect(again).toMatchObject({ status: 200, body: { jobId, message: 'Duplicate request detected - returning existing job' } });
    // A different metadata value is a different request.
    const other = await target.call('POST', '/v1/fetcher', { ...body, metadata: { ...body.metadata, run: randomUUID() } });
    expect(other.status).toBe(202);
    expect(other.body.jobId).not.toBe(jobId);

    // With a Worker behind it (standalone) the job may already have moved on; its request is the same.
    const read = await target.call('GET', `/v1/fetcher/${jobId}`);
    expect(read).toMatchObject({ status: 200, body: { id: jobId, metadata: body.metadata, mappedFields: body.dataRequest.mappedFields } });
    expect(JOB_STATUSES).toContain(read.body.status);
    expect(read.body.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await target.call('GET', `/v1/fetcher/${jobId.replace(/-/g, '').toUpperCase()}`)).body).toMatchObject({ id: jobId });
  });

  it('answers with the documented error codes', async () => {
    const post = (body: unknown, headers?: Record<string, string>) => target.call('POST', '/v1/fetcher', body, headers);
    const mapped = { 'pg-internal': { orders: ['id'] } };
    expect(await post('{"dataRequest":', { 'content-type': 'application/json' })).toMatchObject({ status: 400, body: { code: 'FET-0001' } });
    expect(await post({ dataRequest: { mappedFields: mapped }, metadata: { source: 'reporter' } }, { 'content-type': 'text/plain' })).toMatchObject({
      status: 400,
      body: { code: 'FET-0001', message: 'unable to parse request body' },
    });
    expect(await post({ dataRequest: {}, metadata: { source: 'reporter' } })).toMatchObject({ status: 400, body: { code: 'FET-0402' } });
    expect(await post({ dataRequest: { mappedFields: {} }, metadata: { source: 'reporter' } })).toMatchObject({ status: 400, body: { code: 'FET-0401' } });
    expect(await post({ dataRequest: { mappedFields: mapped }, metadata: {} })).toMatchObject({ status: 400, body: { code: 'FET-0402', title: 'Missing Required Field' } });
    expect(await post({ dataRequest: { mappedFields: { nowhere: { orders: ['id'] } } }, metadata: { source: 'reporter' } })).toMatchObject({
      status: 400,
      body: { code: 'FET-1020' },
    });

    // A stored connection of another product.
    const connection = await target.call(
      'POST',
      '/v1/management/connections',
      postgresConnection('billing-db'),
      { 'X-Product-Name': 'billing' },
    );
    expect(connection.status).toBe(201);
    expect(await post({ dataRequest: { mappedFields: { 'billing-db': { orders: ['id'] } } }, metadata: { source: 'reporter' } })).toMatchObject({
      status: 400,
      body: { code: 'FET-1016' },
    });

    expect(await target.call('GET', '/v1/fetcher/not-a-uuid')).toMatchObject({ status: 400, body: { code: 'FET-0404', message: 'invalid job id' } });
    expect(await target.call('GET', `/v1/fetcher/${randomUUID()}`)).toMatchObject({ status: 404, body: { code: 'FET-1001' } });
  });
});

describe('extraction jobs, production only: the message on RabbitMQ and the dispatch sweep', () => {
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

  it('hands the Worker one signed, persistent message per job, none for a duplicate', async () => {
    const env = managerEnv(mongo.uri, await freePort(), { ...INTERNAL_PG, RABBITMQ_HOST: '127.0.0.1' });
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
    // The duplicate request published nothing.
    expect(await channel.get(env.RABBITMQ_FETCHER_WORK_QUEUE)).toBe(false);
  });

  it('recovers a job whose Manager was killed between the insert and the publish', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    try {
      const shared = { ...INTERNAL_PG, RABBITMQ_HOST: '127.0.0.1', MONGO_NAME: `e2e_${randomUUID().replace(/-/g, '').slice(0, 16)}`, RABBITMQ_FETCHER_WORK_QUEUE: `fetcher.e2e.${randomUUID()}` };
      queues.push(shared.RABBITMQ_FETCHER_WORK_QUEUE);
      const firstEnv = managerEnv(mongo.uri, await freePort(), { ...shared, RABBITMQ_PORT_AMQP: String(proxy.port) });
      const first = await manager(firstEnv);
      const jobs = client.db(shared.MONGO_NAME).collection('job');

      // The broker stops answering: the Manager stores the job, then waits for a confirm that never comes.
      proxy.halfOpen();
      const pending = post(first, { dataRequest: { mappedFields: { 'pg-internal': { orders: ['id'] } } }, metadata: { source: 'reporter' } }).catch(() => undefined);
      const stored = await until(() => jobs.findOne({}), 'the stored job');
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      await pending;
      expect(await jobs.findOne({ _id: stored._id })).toMatchObject({ status: 'pending', dispatched_at: null, dispatch_attempts: 0 });
      await proxy.heal();

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
