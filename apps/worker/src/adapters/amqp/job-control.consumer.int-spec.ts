import { randomUUID } from 'node:crypto';
import { buildJobCancelMessage } from '@fetcher/contracts';
import { envelopeHeaders, verifyEnvelope } from '@fetcher/platform';
import amqp, { type AmqpConnectionManager } from 'amqp-connection-manager';
import amqplib, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { Registry } from 'prom-client';
import { JobCancelRegistry, JobCanceled } from '../../jobs/cancel/job-cancel-registry';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { JobControlConsumer } from './job-control.consumer';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';
const KEY = Buffer.alloc(32, 7);

describe('JobControlConsumer against a real RabbitMQ', () => {
  const exchange = `fetcher.it.job-control.${randomUUID().slice(0, 8)}`;
  let admin: ChannelModel;
  let channel: Channel;
  let connections: AmqpConnectionManager[];

  beforeAll(async () => {
    admin = await amqplib.connect(BROKER);
    channel = await admin.createChannel();
    connections = [amqp.connect([BROKER]), amqp.connect([BROKER])];
  });
  afterAll(async () => {
    await channel.deleteExchange(exchange).catch(() => undefined);
    await admin.close();
    await Promise.all(connections.map((c) => c.close()));
  });

  /** A Worker replica: its own connection, queue, registry and metrics. */
  async function replica(connection: AmqpConnectionManager) {
    const registry = new JobCancelRegistry();
    const metrics = new WorkerMetrics(new Registry());
    const verify = (msg: ConsumeMessage) =>
      verifyEnvelope({ keys: [KEY], headers: msg.properties.headers ?? {}, body: msg.content, exchange: msg.fields.exchange, routingKey: msg.fields.routingKey, now: new Date() });
    const sut = new JobControlConsumer(() => connection, { exchange, verify }, registry, metrics);
    await sut.listen();
    return { sut, registry, metrics };
  }

  const publish = (jobId: string, options: { key?: Buffer; body?: Buffer } = {}) => {
    const body = options.body ?? buildJobCancelMessage(jobId, new Date('2026-12-05T10:00:00Z'));
    const headers = envelopeHeaders({ key: options.key ?? KEY, tenantId: '', exchange, routingKey: '', body, jobId, now: new Date() });
    channel.publish(exchange, '', body, { headers, contentType: 'application/json' });
  };
  const aborted = (signal: AbortSignal) =>
    signal.aborted ? Promise.resolve<unknown>(signal.reason) : new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

  it('delivers a signed cancel to every replica; the one running the job stops it', async () => {
    const [a, b] = [await replica(connections[0]), await replica(connections[1])];
    try {
      const jobId = randomUUID();
      const runOnA = a.registry.watch(jobId);
      const runOnB = b.registry.watch(jobId);
      publish(jobId);
      expect(await aborted(runOnA.signal)).toBeInstanceOf(JobCanceled);
      expect(await aborted(runOnB.signal)).toBeInstanceOf(JobCanceled);
      expect(runOnA.requestedAt).toEqual(new Date('2026-12-05T10:00:00Z'));
    } finally {
      await a.sut.beforeApplicationShutdown();
      await b.sut.beforeApplicationShutdown();
    }
  });

  it('counts and drops a forged and a malformed message, and still obeys the next good one', async () => {
    const { sut, registry, metrics } = await replica(connections[0]);
    try {
      const jobId = randomUUID();
      const run = registry.watch(jobId);
      publish(jobId, { key: Buffer.alloc(32, 9) });
      publish(jobId, { body: Buffer.from(JSON.stringify({ jobId, type: 'job.pause' })) });
      publish(jobId);
      // One queue delivers in order: once the good message aborted the run, the two before it were handled.
      await aborted(run.signal);
      const counted = (await metrics.controlRejected.get()).values.map((v) => [v.labels.reason, v.value]);
      expect(counted).toEqual(expect.arrayContaining([['mismatch', 1], ['malformed', 1]]));
      expect(counted).toHaveLength(2);
    } finally {
      await sut.beforeApplicationShutdown();
    }
  });
});
