import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { CommandBus } from '@nestjs/cqrs';
import { MemoryConnectorFactory, MemoryConnectorRegistry, TemplateConnector } from '@fetcher/engine/memory';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { envelopeHeaders, KeyRing } from '@fetcher/platform';
import amqp, { type AmqpConnectionManager } from 'amqp-connection-manager';
import amqplib, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { type Db, MongoClient } from 'mongodb';
import { Registry } from 'prom-client';
import { TerminalEventRepairer } from '../../jobs/background/terminal-event-repairer';
import type { FailPendingJobCommand } from '../../jobs/commands/fail-pending-job.command';
import { FailPendingJobHandler, FUTURE_MESSAGE_ERROR } from '../../jobs/commands/fail-pending-job.handler';
import { RunJobCommand } from '../../jobs/commands/run-job.command';
import { JobCancelRegistry } from '../../jobs/cancel/job-cancel-registry';
import { RunJobHandler } from '../../jobs/commands/run-job.handler';
import { JobOutbox } from '../../jobs/job-outbox';
import { JobRequestedController } from '../../jobs/job-requested.controller';
import type { JobSettings } from '../../jobs/job-settings';
import { MessageVerifier } from '../../jobs/message-verifier';
import { retriesExhaustedError, type RetryPolicy } from '../../jobs/redelivery';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import type { JobStore } from '../../ports/job-store.port';
import { InMemoryResultStore } from '../../testing/in-memory-result-store';
import { RecordingEventPublisher } from '../../testing/recording-event-publisher';
import { storedConnection } from '../../testing/stored-connection';
import { MemoryConnectionResolver } from '../embedded/connection-resolver.memory';
import { MongoJobStore } from '../mongo/job-store.mongo';
import { uuidToBinary } from '@fetcher/contracts';
import { JOB_REQUESTED, JobQueueTransport } from './job-queue.transport';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

/** Polls `probe` every 20 ms until it returns a value, failing after `ms`. */
async function poll<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The real Mongo job store whose reads of a job fail while `failures` is above zero (the database
 * paused), one failure per call: `acquire` (a delivery's first call) and `find`.
 */
class PausingJobStore extends MongoJobStore {
  failures = 0;
  override find(jobId: string): ReturnType<JobStore['find']> {
    return this.#paused() ?? super.find(jobId);
  }

  override acquire(...args: Parameters<JobStore['acquire']>): ReturnType<JobStore['acquire']> {
    return this.#paused() ?? super.acquire(...args);
  }

  #paused(): Promise<never> | undefined {
    if (this.failures <= 0) return undefined;
    this.failures--;
    return Promise.reject(new Error('connection pool paused'));
  }
}

describe('Worker redelivery against a real RabbitMQ and the MongoDB test server', () => {
  const id = randomUUID().slice(0, 8);
  const queue = `fetcher.it.redelivery.${id}`;
  const dlx = `fetcher.it.redelivery-dlx.${id}`;
  const dlq = `fetcher.it.redelivery-dlq.${id}`;
  const ring = KeyRing.create({ current: { version: '1', key: randomBytes(32) } });
  let target: MongoTestTarget;
  let client: MongoClient;
  let db: Db;
  let admin: ChannelModel;
  let channel: Channel;
  let connection: AmqpConnectionManager;
  let transport: JobQueueTransport;
  let store: PausingJobStore;
  let spoolDir: string;
  let repairer: TerminalEventRepairer;
  const events = new RecordingEventPublisher();
  const deliveries: ConsumeMessage[] = [];
  const deadLettered: ConsumeMessage[] = [];
  const sleeps: number[] = [];

  beforeAll(async () => {
    Logger.overrideLogger(false); // the failure paths log on purpose
    spoolDir = mkdtempSync(join(tmpdir(), 'redelivery-it-'));
    target = await withMongo();
    client = await new MongoClient(target.uri).connect();
    db = client.db(`worker_redelivery_${id}`);
    store = new PausingJobStore(db);

    admin = await amqplib.connect(BROKER);
    channel = await admin.createChannel();
    await channel.assertExchange(dlx, 'direct', { durable: false, autoDelete: false });
    await channel.assertQueue(dlq, { durable: false });
    await channel.bindQueue(dlq, dlx, 'dead');
    await channel.consume(dlq, (msg) => msg && deadLettered.push(msg), { noAck: true });
    connection = amqp.connect([BROKER]);

    const settings: JobSettings = {
      leaseTtlMs: 60_000,
      leaseOwner: 'it:1:abc',
      spoolDir,
      objectKeyPrefix: '',
      workQueue: queue,
      eventsExchange: 'fetcher.job.events',
      eventSource: '//lerian.fetcher/worker',
      upload: { partBytes: 1 << 20, maxInFlight: 4, sleep: () => Promise.resolve() },
      ring,
      progressIntervalMs: 60_000,
    };
    const clock = { now: () => new Date() };
    const metrics = new WorkerMetrics(new Registry());
    const outbox = new JobOutbox(store, events, settings, clock);
    const registry = new MemoryConnectorRegistry().register('memory', new MemoryConnectorFactory(new TemplateConnector({ rows: { users: [{ id: 1n }] } })));
    const resolver = new MemoryConnectionResolver({ live: () => [storedConnection(ring, 'crm', { type: 'memory', productName: 'it' })] }, ring);
    const run = new RunJobHandler(store, resolver, new InMemoryResultStore(), registry, settings, clock, outbox, metrics, new JobCancelRegistry());
    const fail = new FailPendingJobHandler(store, clock, outbox);
    repairer = new TerminalEventRepairer(store, outbox);
    const commands = {
      execute: (command: unknown) => (command instanceof RunJobCommand ? run.execute(command) : fail.execute(command as FailPendingJobCommand)),
    } as unknown as CommandBus;
    // No waiting in the test: the delays the policy asked for are recorded instead.
    const retry: RetryPolicy = { maxRetries: 2, baseDelayMs: 1_000, maxDelayMs: 30_000, sleep: (ms) => { sleeps.push(ms); return Promise.resolve(); } };
    const controller = new JobRequestedController(new MessageVerifier(settings, { allowLegacyBodySignature: false }, clock), commands, metrics, retry);

    transport = new JobQueueTransport(() => connection, {
      queue,
      concurrency: 1,
      setupTopology: async (ch) => {
        await ch.assertQueue(queue, { durable: false, arguments: { 'x-dead-letter-exchange': dlx, 'x-dead-letter-routing-key': 'dead' } });
      },
    });
    transport.addHandler(JOB_REQUESTED, (msg: ConsumeMessage) => {
      deliveries.push(msg);
      return controller.onJobRequested(msg);
    }, true);
    await new Promise<void>((resolve, reject) => transport.listen((error?: unknown) => (error ? reject(error instanceof Error ? error : new Error('listen failed')) : resolve())));
  });

  afterAll(async () => {
    await transport?.close();
    await channel?.deleteQueue(queue).catch(() => undefined);
    await channel?.deleteQueue(dlq).catch(() => undefined);
    await channel?.deleteExchange(dlx).catch(() => undefined);
    await admin?.close();
    await connection?.close();
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    await target?.close();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  const seedPending = async () => {
    const jobId = randomUUID();
    await db.collection('job').insertOne({ _id: uuidToBinary(jobId), status: 'pending', dedup_active: true, mapped_fields: { crm: { users: ['id'] } }, metadata: { source: 'it' }, created_at: new Date() } as never);
    return jobId;
  };
  const job = (jobId: string) => db.collection('job').findOne({ _id: uuidToBinary(jobId) } as never);
  const sendSigned = (jobId: string, signedAt = new Date()) => {
    const body = Buffer.from(JSON.stringify({ createdAt: signedAt.toISOString(), jobId, mappedFields: { crm: { users: ['id'] } }, metadata: { source: 'it' } }));
    const headers = envelopeHeaders({ key: ring.current().internalHmac, tenantId: '', exchange: '', routingKey: queue, body, jobId, now: signedAt });
    channel.sendToQueue(queue, body, { headers, persistent: false, contentType: 'application/json' });
  };
  const retryCounts = (jobId: string) => deliveries.filter((d) => d.properties.headers?.jobId === jobId).map((d) => d.properties.headers?.['x-retry-count'] as unknown);

  it('republishes a delivery the job store failed once, with x-retry-count 1, and the job completes', async () => {
    const jobId = await seedPending();
    store.failures = 1;
    sendSigned(jobId);
    const done = await poll(async () => ((await job(jobId))?.status === 'completed' ? true : undefined));
    expect(done).toBe(true);
    expect(retryCounts(jobId)).toEqual([0, 1]);
    await poll(() => events.published.find((e) => String(e.headers['ce-id']) === `fetcher.job.completed.${jobId}`));
    expect(deadLettered.filter((d) => d.properties.headers?.jobId === jobId)).toEqual([]);
  });

  it('retries a delivery the job store keeps failing up to the bound, then dead-letters it', async () => {
    const jobId = await seedPending();
    sleeps.length = 0;
    store.failures = 1_000;
    try {
      sendSigned(jobId);
      const dead = await poll(() => deadLettered.find((d) => d.properties.headers?.jobId === jobId));
      expect(dead.properties.headers?.['x-retry-count']).toBe(2);
      expect(retryCounts(jobId)).toEqual([0, 1, 2]);
      expect(sleeps).toEqual([1_000, 2_000]);
      // The store is still down, so the job stays pending: the Manager's sweep ends it (its own tests).
      expect((await job(jobId))?.status).toBe('pending');
    } finally {
      store.failures = 0;
    }
  });

  it('fails the job of an authentic message signed in the future with its reason and job.failed', async () => {
    const jobId = await seedPending();
    sendSigned(jobId, new Date(Date.now() + 10 * 60_000));
    const failed = await poll(async () => {
      const doc = await job(jobId);
      return doc?.status === 'failed' ? doc : undefined;
    });
    expect(failed.metadata).toMatchObject({ error: FUTURE_MESSAGE_ERROR });
    await poll(() => deadLettered.find((d) => d.properties.headers?.jobId === jobId));
    const event = await poll(() => events.published.find((e) => String(e.headers['ce-id']) === `fetcher.job.failed.${jobId}`));
    expect(JSON.parse(event.body.toString())).toMatchObject({ jobId, status: 'failed', metadata: { error: { message: FUTURE_MESSAGE_ERROR } } });
  });

  it('after the last retry, fails the job when the store is back for that write', async () => {
    const jobId = await seedPending();
    store.failures = 3; // the first delivery and both retries; the failure write then gets through
    sendSigned(jobId);
    const failed = await poll(async () => {
      const doc = await job(jobId);
      return doc?.status === 'failed' ? doc : undefined;
    });
    expect(failed.metadata).toMatchObject({ error: retriesExhaustedError(3) });
    await poll(() => events.published.find((e) => String(e.headers['ce-id']) === `fetcher.job.failed.${jobId}`));
  });

  it('sends the job.failed event the Manager\'s dispatch sweep stored when it failed a job', async () => {
    const jobId = randomUUID();
    const payload = JSON.stringify({ jobId, metadata: { source: 'it', error: { message: 'process failed: job was not picked up after 3 dispatches' } }, status: 'failed' });
    // The document as the Manager's sweep leaves it: failed, with the Worker's outbox marker.
    await db.collection('job').insertOne({
      _id: uuidToBinary(jobId),
      status: 'failed',
      dedup_active: false,
      completed_at: new Date(),
      created_at: new Date(),
      metadata: { source: 'it', error: 'process failed: job was not picked up after 3 dispatches', terminalEventPending: true, terminalEventStatus: 'failed', terminalEventPayload: payload },
    } as never);
    expect(await repairer.runOnce()).toBeGreaterThanOrEqual(1);
    const event = events.published.find((e) => String(e.headers['ce-id']) === `fetcher.job.failed.${jobId}`);
    expect(event?.body.toString()).toBe(payload);
    expect((await job(jobId))?.metadata).not.toHaveProperty('terminalEventPending');
  });
});
