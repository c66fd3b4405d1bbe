import { randomUUID } from 'node:crypto';
import { getConnectionToken } from '@nestjs/mongoose';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { idFilter } from '@fetcher/contracts';
import amqplib, { type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import type { Connection, mongo } from 'mongoose';
import { v7 as uuidv7 } from 'uuid';
import { JOB_MODEL, JobSchema } from '../adapters/mongo/job.schema';
import { MongoModule } from '../adapters/mongo/mongo.module';
import { loadManagerConfig, type ManagerConfig, mongoSettings } from '../config/manager.config';
import { createManagerApp } from '../http/http-app';
import { CLOCK } from '../ports/clock.port';
import { FakeClock } from '../testing/fake-clock';
import { managerTestEnv } from '../testing/manager-test-env';
import { pollUntil } from '../testing/poll';
import { drainQueue } from '../testing/amqp-queue';

/** An operator-configured datasource: exempt from ownership and the connectivity check. */
const INTERNAL = {
  DATASOURCE_PGI_CONFIG_NAME: 'pg-internal',
  DATASOURCE_PGI_TYPE: 'POSTGRESQL',
  DATASOURCE_PGI_HOST: '127.0.0.1',
  DATASOURCE_PGI_PORT: '5432',
  DATASOURCE_PGI_DATABASE: 'test',
  DATASOURCE_PGI_USER: 'postgres',
  DATASOURCE_MYI_CONFIG_NAME: 'my-internal',
  DATASOURCE_MYI_TYPE: 'MYSQL',
  DATASOURCE_MYI_HOST: '127.0.0.1',
  DATASOURCE_MYI_PORT: '3306',
  DATASOURCE_MYI_DATABASE: 'test',
  DATASOURCE_MYI_USER: 'root',
};

type Body = Record<string, unknown>;
interface Reply {
  status: number;
  body: Body;
}

describe('job control routes (list, cancel, retry) against RabbitMQ and the MongoDB test server', () => {
  let target: MongoTestTarget;
  let broker: ChannelModel;
  let channel: Channel;
  let app: NestFastifyApplication;
  let config: ManagerConfig;
  let jobs: mongo.Collection<{ _id: mongo.Binary } & mongo.Document>;
  const clock = new FakeClock('2026-03-01T00:00:00Z');
  const controlQueue = `fetcher.it.control.${randomUUID()}`;

  beforeAll(async () => {
    target = await withMongo();
    broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    channel = await broker.createChannel();
    await channel.assertExchange('fetcher.job.control', 'fanout', { durable: true });
    await channel.assertQueue(controlQueue, { durable: false });
    await channel.bindQueue(controlQueue, 'fetcher.job.control', '');
    config = loadManagerConfig(managerTestEnv(target.uri, INTERNAL));
    app = await createManagerApp(config, {
      logger: false,
      redisKeyPrefix: `it:${randomUUID()}:`,
      infrastructure: {
        imports: [MongoModule.forRoot(mongoSettings(config), [{ name: JOB_MODEL, schema: JobSchema }])],
        providers: [{ provide: CLOCK, useValue: clock }],
      },
    });
    jobs = app.get<Connection>(getConnectionToken()).collection<{ _id: mongo.Binary } & mongo.Document>('job');
  });
  afterAll(async () => {
    await app.close();
    await channel.deleteQueue(config.amqp.workQueue);
    await channel.deleteQueue(controlQueue);
    await broker.close();
    await target.close();
  });

  async function call(method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await app.inject({
      method,
      url,
      headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: (res.body ? JSON.parse(res.body) : {}) as Body };
  }

  /** A new job one second after the previous one, through the API. */
  async function create(source = 'reporter', datasource = 'pg-internal'): Promise<string> {
    clock.advance(1_000);
    const res = await call('POST', '/v1/fetcher', {
      dataRequest: { mappedFields: { [datasource]: { transactions: ['id'] } } },
      metadata: { source, correlationId: randomUUID() },
    });
    expect(res.status).toBe(202);
    return res.body.jobId as string;
  }

  /** What a Worker would do. */
  async function setStatus(id: string, status: string): Promise<void> {
    const terminal = status !== 'pending' && status !== 'processing';
    await jobs.updateOne({ _id: idFilter(id) }, { $set: { status, dedup_active: !terminal, completed_at: terminal ? clock.now() : null } });
  }

  const ids = (res: Reply) => (res.body.items as Body[]).map((j) => j.id);

  const drain = (queue: string): Promise<GetMessage[]> => drainQueue(channel, queue);

  describe('GET /v1/fetcher', () => {
    const created: Record<string, string> = {};
    let from: string;
    beforeAll(async () => {
      from = new Date(clock.now().getTime() + 1).toISOString();
      created.a = await create('reporter');
      created.b = await create('billing');
      created.c = await create('reporter', 'my-internal');
      created.d = await create('reporter');
      await setStatus(created.a, 'failed');
      await setStatus(created.b, 'completed');
      await setStatus(created.c, 'processing');
    });

    it('lists newest first, each job as GET /v1/fetcher/{id} shows it', async () => {
      const res = await call('GET', `/v1/fetcher?createdFrom=${from}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([created.d, created.c, created.b, created.a]);
      expect(res.body).not.toHaveProperty('nextCursor');
      expect((res.body.items as Body[])[0]).toEqual((await call('GET', `/v1/fetcher/${created.d}`)).body);
    });

    it('filters on status (repeated and comma-separated), configName, the creation range and the product', async () => {
      expect(ids(await call('GET', `/v1/fetcher?createdFrom=${from}&status=failed&status=completed,processing`))).toEqual([created.c, created.b, created.a]);
      expect(ids(await call('GET', `/v1/fetcher?createdFrom=${from}&configName=my-internal`))).toEqual([created.c]);
      const cTime = (await call('GET', `/v1/fetcher/${created.c}`)).body.createdAt as string;
      expect(ids(await call('GET', `/v1/fetcher?createdFrom=${from}&createdTo=${cTime}`))).toEqual([created.b, created.a]);
      expect(ids(await call('GET', `/v1/fetcher?createdFrom=${from}`, undefined, { 'x-product-name': 'Billing' }))).toEqual([created.b]);
      expect(ids(await call('GET', `/v1/fetcher?createdFrom=${from}&status=completed`, undefined, { 'x-product-name': 'reporter' }))).toEqual([]);
    });

    it('pages with a cursor without duplicates or gaps while new jobs arrive', async () => {
      const seen: unknown[] = [];
      let url = `/v1/fetcher?createdFrom=${from}&limit=1`;
      for (let page = 0; page < 10; page++) {
        const res = await call('GET', url);
        expect(res.status).toBe(200);
        seen.push(...ids(res));
        await create('reporter'); // newer than anything listed: never on a later page
        if (res.body.nextCursor === undefined) break;
        url = `/v1/fetcher?createdFrom=${from}&limit=1&cursor=${res.body.nextCursor as string}`;
      }
      expect(seen).toEqual([created.d, created.c, created.b, created.a]);
    });

    it.each([
      ['status=running', 400, 'FET-0416'],
      ['createdFrom=tomorrow', 400, 'FET-0416'],
      ['limit=101', 400, 'FET-0406'],
      ['limit=0', 400, 'FET-0416'],
      ['cursor=abc', 400, 'FET-0417'],
      ['configName=a%20b', 400, 'FET-0416'],
    ])('answers %s with %d %s', async (query, status, code) => {
      const res = await call('GET', `/v1/fetcher?${query}`);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ code });
    });

    it('refuses a blank X-Product-Name with FET-0403', async () => {
      expect((await call('GET', '/v1/fetcher', undefined, { 'x-product-name': ' ' })).body).toMatchObject({ code: 'FET-0403' });
    });
  });

  describe('POST /v1/fetcher/{id}/cancel', () => {
    it('cancels a pending job at once, stores its job.canceled event, and answers the same state again', async () => {
      const id = await create();
      const res = await call('POST', `/v1/fetcher/${id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'canceled', completedAt: clock.now().toISOString() });
      expect(res.body.metadata).not.toHaveProperty('terminalEventPayload');
      const doc = await jobs.findOne({ _id: idFilter(id) });
      expect(doc).toMatchObject({ status: 'canceled', dedup_active: false, metadata: { terminalEventPending: true, terminalEventStatus: 'canceled' } });
      expect(JSON.parse((doc?.metadata as Body).terminalEventPayload as string)).toMatchObject({ jobId: id, status: 'canceled', progress: { tablesDone: 0, rowsSoFar: 0 } });
      expect(await call('POST', `/v1/fetcher/${id}/cancel`)).toEqual(res);
    });

    it('asks the Worker of a processing job to stop with a signed control message, and answers 202', async () => {
      const id = await create();
      await setStatus(id, 'processing');
      await drain(controlQueue);
      const res = await call('POST', `/v1/fetcher/${id}/cancel`);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ id, status: 'processing', cancelRequestedAt: clock.now().toISOString() });
      const message = await pollUntil(async () => (await channel.get(controlQueue, { noAck: true })) || undefined);
      expect(JSON.parse(message.content.toString('utf8'))).toEqual({ type: 'job.cancel', jobId: id, requestedAt: clock.now().toISOString() });
      expect(message.properties.headers).toMatchObject({ jobId: id, 'signature-version': 'v1', 'x-message-signature': expect.any(String) });
      expect(await jobs.findOne({ _id: idFilter(id) })).toMatchObject({ status: 'processing', cancel_requested_at: clock.now() });
      clock.advance(1_000);
      expect((await call('POST', `/v1/fetcher/${id}/cancel`)).body).toMatchObject({ cancelRequestedAt: res.body.cancelRequestedAt });
    });

    it.each(['completed', 'failed'])('refuses a %s job with 409 FET-1022', async (status) => {
      const id = await create();
      await setStatus(id, status);
      const res = await call('POST', `/v1/fetcher/${id}/cancel`);
      expect(res).toEqual({ status: 409, body: { code: 'FET-1022', title: 'Job Not Cancelable', message: `The job is already ${status} and cannot be canceled.` } });
    });

    it('answers 400 FET-0404 for a malformed id and 404 FET-1001 for an unknown one', async () => {
      expect(await call('POST', '/v1/fetcher/nope/cancel')).toMatchObject({ status: 400, body: { code: 'FET-0404' } });
      expect(await call('POST', `/v1/fetcher/${uuidv7()}/cancel`)).toMatchObject({ status: 404, body: { code: 'FET-1001' } });
    });
  });

  describe('POST /v1/fetcher/{id}/retry', () => {
    it('retries a failed job as a new queued job linked both ways, once', async () => {
      const id = await create();
      await setStatus(id, 'failed');
      await drain(config.amqp.workQueue);
      const res = await call('POST', `/v1/fetcher/${id}/retry`);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', retryOf: id });
      const retryId = res.body.id as string;
      expect(retryId).not.toBe(id);
      expect((await call('GET', `/v1/fetcher/${id}`)).body).toMatchObject({ status: 'failed', retriedBy: retryId });
      const messages = await drain(config.amqp.workQueue);
      expect(messages.map((m) => (JSON.parse(m.content.toString('utf8')) as Body).jobId)).toEqual([retryId]);
      expect(await call('POST', `/v1/fetcher/${id}/retry`)).toMatchObject({ status: 200, body: { id: retryId } });
    });

    it('retries a job canceled while pending', async () => {
      const id = await create();
      expect((await call('POST', `/v1/fetcher/${id}/cancel`)).status).toBe(200);
      const res = await call('POST', `/v1/fetcher/${id}/retry`);
      expect(res).toMatchObject({ status: 202, body: { retryOf: id } });
    });

    it.each(['pending', 'processing', 'completed'])('refuses a %s job with 409 FET-1023', async (status) => {
      const id = await create();
      await setStatus(id, status);
      expect(await call('POST', `/v1/fetcher/${id}/retry`)).toMatchObject({ status: 409, body: { code: 'FET-1023', title: 'Job Not Retryable' } });
    });
  });
});
