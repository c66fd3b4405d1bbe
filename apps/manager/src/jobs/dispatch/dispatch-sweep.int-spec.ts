import { randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { createTenantContext } from '@fetcher/engine';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { verifyEnvelope } from '@fetcher/platform';
import amqplib, { type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import mongoose, { type Connection, type mongo } from 'mongoose';
import { v7 as uuidv7 } from 'uuid';
import { AmqpJobPublisher } from '../../adapters/amqp/job-publisher.amqp';
import { MongoJobRepository } from '../../adapters/mongo/job-repository.mongo';
import { JOB_MODEL, JobSchema } from '../../adapters/mongo/job.schema';
import { uuidToBinary } from '@fetcher/contracts';
import { FakeClock } from '../../testing/fake-clock';
import { pollUntil } from '../../testing/poll';
import { DispatchSweep, notPickedUpError } from './dispatch-sweep';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';
const tenant = createTenantContext('default');
type RawDoc = { _id: mongo.Binary } & mongo.Document;

describe('DispatchSweep against the MongoDB test server and a real RabbitMQ', () => {
  const key = randomBytes(32);
  const queue = `fetcher.it.sweep.${randomUUID()}`;
  let target: MongoTestTarget;
  let connection: Connection;
  let admin: ChannelModel;
  let channel: Channel;
  let publisher: AmqpJobPublisher;
  let jobs: MongoJobRepository;
  let raw: mongo.Collection<RawDoc>;
  const clock = new FakeClock(new Date());

  beforeAll(async () => {
    Logger.overrideLogger(false); // the sweep logs what it does on purpose
    target = await withMongo();
    connection = await mongoose.createConnection(target.uri, { dbName: `sweep_it_${randomUUID().slice(0, 8)}` }).asPromise();
    jobs = new MongoJobRepository(connection.model(JOB_MODEL, JobSchema) as unknown as mongoose.Model<unknown>);
    await jobs.ensureIndexes();
    raw = connection.db!.collection<RawDoc>('job');
    admin = await amqplib.connect(BROKER);
    channel = await admin.createChannel();
    publisher = new AmqpJobPublisher({ url: BROKER, workQueue: queue, signingKey: key, reconnectSeconds: 0.2, confirmTimeoutMs: 2_000 }, clock);
    await publisher.waitForConnection(5_000);
  });
  afterAll(async () => {
    await publisher?.onApplicationShutdown();
    await channel?.deleteQueue(queue).catch(() => undefined);
    await admin?.close();
    await connection?.dropDatabase().catch(() => undefined);
    await connection?.close();
    await target?.close();
  });

  const nextMessage = (): Promise<GetMessage> => pollUntil(async () => (await channel.get(queue, { noAck: true })) || undefined);

  it('re-dispatches a pending job whose message was lost with a fresh signed message, then fails it after the bound with its job.failed event stored', async () => {
    const sut = new DispatchSweep(
      jobs,
      publisher,
      clock,
      tenant,
      { intervalSec: 30, minAgeSec: 60, maxAttempts: 10, redispatchAfterSec: 600, maxRedispatches: 1 },
      { inc: () => undefined },
      { inc: () => undefined },
    );
    // A job the Manager dispatched whose message a Worker dead-lettered while MongoDB was down.
    const id = uuidv7();
    const created = clock.now();
    await jobs.insert(tenant, {
      id,
      status: 'pending',
      mappedFields: { 'pg-main': { t: ['a'] } },
      metadata: { source: 'reporter' },
      requestHash: randomUUID(),
      createdAt: created,
      completedAt: null,
      dispatchedAt: created,
      dispatchAttempts: 1,
    });

    clock.advance(300_000);
    expect(await sut.sweepOnce()).toMatchObject({ redispatched: 0, gaveUp: 0 });
    clock.advance(300_001);
    expect(await sut.sweepOnce()).toMatchObject({ redispatched: 1, gaveUp: 0 });
    const message = await nextMessage();
    expect(message.properties.headers?.jobId).toBe(id);
    const verified = verifyEnvelope({ keys: [key], headers: message.properties.headers, body: message.content, exchange: '', routingKey: queue, now: clock.now() });
    expect(verified).toMatchObject({ ok: true, jobId: id });
    expect(await raw.findOne({ _id: uuidToBinary(id) })).toMatchObject({ status: 'pending', dispatched_at: clock.now(), redispatch_count: 1 });

    clock.advance(600_001);
    expect(await sut.sweepOnce()).toMatchObject({ redispatched: 0, gaveUp: 1 });
    const failed = await raw.findOne({ _id: uuidToBinary(id) });
    expect(failed).toMatchObject({
      status: 'failed',
      dedup_active: false,
      completed_at: clock.now(),
      metadata: { source: 'reporter', error: notPickedUpError(2), terminalEventPending: true, terminalEventStatus: 'failed' },
    });
    expect(JSON.parse(String((failed?.metadata as Record<string, unknown>).terminalEventPayload))).toEqual({
      jobId: id,
      metadata: { source: 'reporter', error: { message: notPickedUpError(2) } },
      status: 'failed',
    });
    expect(await channel.get(queue, { noAck: true })).toBe(false); // no further message for a failed job
  });
});
