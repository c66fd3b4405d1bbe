import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
import { SpanKind, startTelemetry } from '@fetcher/platform';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import amqplib, { type Channel, type ChannelModel, type ConsumeMessage, type GetMessage } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../../jobs/job';
import { FakeClock } from '../../testing/fake-clock';
import { type DeliveredMessage, jobPublisherContract } from '../../testing/job-publisher.contract';
import { pollUntil } from '../../testing/poll';
import { FaultProxy } from '@fetcher/platform/testing';
import { AmqpJobPublisher, PublishError } from './job-publisher.amqp';
import { RabbitMqReadinessProbe } from './rabbitmq.probe';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';
const tenant = createTenantContext('default', 'req-it');

function aJob(): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields: { 'pg-main': { transactions: ['id', 'amount'] } },
    filters: { 'pg-main': { transactions: { status: { eq: ['completed'] } } } },
    metadata: { source: 'reporter' },
    requestHash: 'h',
    createdAt: new Date('2026-11-29T10:00:00.123Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}

/** The Worker's check, written out with node:crypto only, so it does not share a bug with the signer. */
function independentSignature(key: Buffer, message: ConsumeMessage | GetMessage, queue: string): string {
  const headers = message.properties.headers ?? {};
  const jobId = (JSON.parse(message.content.toString('utf8')) as { jobId: string }).jobId;
  return createHmac('sha256', key)
    .update(`${String(headers.t)}\nv1\n\n${jobId}\n\n${queue}\n`, 'utf8')
    .update(message.content)
    .digest('hex');
}

describe('AmqpJobPublisher against a real RabbitMQ', () => {
  const key = randomBytes(32);
  const queues: string[] = [];
  const publishers: AmqpJobPublisher[] = [];
  let admin: ChannelModel;
  let channel: Channel;

  beforeAll(async () => {
    admin = await amqplib.connect(BROKER);
    channel = await admin.createChannel();
  });
  afterAll(async () => {
    await Promise.all(publishers.map((p) => p.onApplicationShutdown()));
    for (const queue of queues) await channel.deleteQueue(queue);
    await admin.close();
  });

  function setup(url = BROKER, breakerNow?: () => number) {
    const queue = `fetcher.it.jobs.${randomUUID()}`;
    queues.push(queue);
    const clock = new FakeClock(new Date());
    const sut = new AmqpJobPublisher(
      { url, workQueue: queue, signingKey: key, reconnectSeconds: 0.2, confirmTimeoutMs: 2_000, ...(breakerNow ? { breaker: { now: breakerNow } } : {}) },
      clock,
    );
    publishers.push(sut);
    return { sut, queue, clock, probe: new RabbitMqReadinessProbe(sut) };
  }

  async function nextMessage(queue: string): Promise<GetMessage> {
    return pollUntil(async () => (await channel.get(queue, { noAck: true })) || undefined);
  }

  it('publishes a signed job.cancel on the durable fanout control exchange, which every bound queue receives', async () => {
    const { sut } = setup();
    await sut.waitForConnection(5_000);
    await channel.assertExchange('fetcher.job.control', 'fanout', { durable: true });
    const replicas = [`fetcher.it.control.${randomUUID()}`, `fetcher.it.control.${randomUUID()}`];
    for (const queue of replicas) {
      queues.push(queue);
      await channel.assertQueue(queue, { durable: false });
      await channel.bindQueue(queue, 'fetcher.job.control', '');
    }
    const jobId = uuidv7();
    await sut.publishCancel(tenant, jobId, new Date('2026-11-29T10:00:01.000Z'));
    for (const queue of replicas) {
      const message = await nextMessage(queue);
      expect(JSON.parse(message.content.toString('utf8'))).toEqual({ type: 'job.cancel', jobId, requestedAt: '2026-11-29T10:00:01.000Z' });
      const headers = message.properties.headers ?? {};
      const expected = createHmac('sha256', key)
        .update(`${String(headers.t)}\nv1\n\n${jobId}\nfetcher.job.control\n\n`, 'utf8')
        .update(message.content)
        .digest('hex');
      expect(headers).toMatchObject({ jobId, 'x-message-signature': expected, 'signature-version': 'v1', 'X-Request-Id': 'req-it' });
      expect(message.properties.deliveryMode).toBe(2);
    }
  });

  describe('the job publisher contract', () => {
    jobPublisherContract(async ({ workQueue, signingKey, clock }) => {
      queues.push(workQueue);
      // The work queue as the topology declares it, so the queue's view exists before the first publish.
      await channel.assertQueue(workQueue, { durable: true, arguments: { 'x-dead-letter-exchange': 'fetcher.dlx', 'x-dead-letter-routing-key': 'fetcher.dlq.key' } });
      const publisher = new AmqpJobPublisher({ url: BROKER, workQueue, signingKey, reconnectSeconds: 0.2, confirmTimeoutMs: 2_000 }, clock);
      publishers.push(publisher);
      await publisher.waitForConnection(5_000);
      const delivered: DeliveredMessage[] = [];
      return {
        publisher,
        delivered: async () => {
          for (let m = await channel.get(workQueue, { noAck: true }); m; m = await channel.get(workQueue, { noAck: true })) {
            delivered.push({ exchange: m.fields.exchange, routingKey: m.fields.routingKey, body: m.content, headers: m.properties.headers ?? {} });
          }
          return [...delivered];
        },
        broken: () => {
          // Nothing listens on port 1: the publisher has no connection and must not pretend it sent.
          const broken = new AmqpJobPublisher({ url: 'amqp://guest:guest@127.0.0.1:1', workQueue, signingKey, reconnectSeconds: 0.2 }, clock);
          publishers.push(broken);
          return broken;
        },
      };
    });
  });

  it('publishes a persistent JSON message whose signature an independent verifier accepts', async () => {
    const { sut, queue, clock, probe } = setup();
    await sut.waitForConnection(5_000);
    const job = aJob();
    await sut.publishExtractionRequested(tenant, job, 'req-42');
    const message = await nextMessage(queue);

    expect(message.content.toString('utf8')).toBe(
      `{"createdAt":"2026-11-29T10:00:00.123Z","filters":{"pg-main":{"transactions":{"status":{"eq":["completed"]}}}},"jobId":"${job.id}",` +
        '"mappedFields":{"pg-main":{"transactions":["id","amount"]}},"metadata":{"source":"reporter"}}',
    );
    expect(message.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json' });
    expect(message.fields).toMatchObject({ exchange: '', routingKey: queue });
    const headers = message.properties.headers!;
    expect(headers).toEqual({
      jobId: job.id,
      'X-Request-Id': 'req-42',
      'x-retry-count': 0,
      'x-message-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
      t: String(Math.floor(clock.now().getTime() / 1000)),
      'signature-version': 'v1',
    });
    expect(headers['x-message-signature']).toBe(independentSignature(key, message, queue));
    expect(await probe.check()).toEqual({ status: 'up', breaker_state: 'closed' });
  });

  it('with telemetry, publishes in a producer span whose context travels in the message headers', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = startTelemetry({ enabled: true, serviceName: 'fetcher-manager-it', exporter });
    try {
      const queue = `fetcher.it.jobs.${randomUUID()}`;
      queues.push(queue);
      const sut = new AmqpJobPublisher({ url: BROKER, workQueue: queue, signingKey: key, telemetry }, new FakeClock(new Date()));
      publishers.push(sut);
      await sut.waitForConnection(5_000);
      const job = aJob();
      await sut.publishExtractionRequested(tenant, job, 'req-traced');
      const message = await nextMessage(queue);
      await telemetry.flush();
      const [span] = exporter.getFinishedSpans();
      expect(span).toMatchObject({ name: `publish ${queue}`, kind: SpanKind.PRODUCER });
      expect(span.attributes).toMatchObject({ 'messaging.destination.name': queue, 'fetcher.job.id': job.id });
      const { traceId, spanId } = span.spanContext();
      expect(message.properties.headers?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      // The trace header does not change what is signed.
      expect(message.properties.headers?.['x-message-signature']).toBe(independentSignature(key, message, queue));
    } finally {
      await telemetry.shutdown();
    }
  });

  it('declares the work queue dead-lettering to fetcher.dlx', async () => {
    const { sut, queue } = setup();
    await sut.waitForConnection(5_000);
    await sut.publishExtractionRequested(tenant, aJob(), 'r');
    // Re-declaring with the same arguments succeeds only if they match what the publisher declared.
    await expect(
      channel.assertQueue(queue, { durable: true, arguments: { 'x-dead-letter-exchange': 'fetcher.dlx', 'x-dead-letter-routing-key': 'fetcher.dlq.key' } }),
    ).resolves.toMatchObject({ messageCount: 1 });
  });

  it('counts a returned (unroutable) message as a failure', async () => {
    const { sut, queue } = setup();
    await sut.waitForConnection(5_000);
    await sut.publishExtractionRequested(tenant, aJob(), 'r'); // opens the channel and declares the queue
    await channel.deleteQueue(queue);
    // The retry's fresh channel declares the queue again, so only the first attempt is returned.
    await sut.publishExtractionRequested(tenant, aJob(), 'r');
    expect((await nextMessage(queue)).properties.headers?.jobId).toBeDefined();
  });

  it('fails at once while the broker is unreachable and publishes again once it is back, without a restart', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    try {
      const { sut, queue, probe } = setup(`amqp://guest:guest@127.0.0.1:${proxy.port}`);
      await sut.waitForConnection(5_000);
      await sut.publishExtractionRequested(tenant, aJob(), 'before');
      await nextMessage(queue);

      proxy.cut();
      await pollUntil(() => !sut.health().connected);
      await expect(sut.publishExtractionRequested(tenant, aJob(), 'during')).rejects.toBeInstanceOf(PublishError);
      expect(await probe.check()).toMatchObject({ status: 'down', error: 'not connected' });

      proxy.restore();
      await pollUntil(() => sut.health().connected, 15_000);
      const job = aJob();
      await sut.publishExtractionRequested(tenant, job, 'after');
      expect((await nextMessage(queue)).properties.headers?.jobId).toBe(job.id);
      await sut.onApplicationShutdown();
    } finally {
      await proxy.close();
    }
  });

  it('opens the breaker after five failed publishes, and lets one trial through once the connection is back', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    const now = 1_000_000;
    try {
      const { sut, queue, probe } = setup(`amqp://guest:guest@127.0.0.1:${proxy.port}`, () => now);
      await sut.waitForConnection(5_000);
      proxy.cut();
      await pollUntil(() => !sut.health().connected);
      for (let i = 0; i < 5; i++) await expect(sut.publishExtractionRequested(tenant, aJob(), 'r')).rejects.toMatchObject({ reason: 'not_connected' });
      await expect(sut.publishExtractionRequested(tenant, aJob(), 'r')).rejects.toMatchObject({ reason: 'circuit_open' });
      expect(await probe.check()).toEqual({ status: 'down', error: 'circuit breaker open', breaker_state: 'open' });

      proxy.restore();
      await pollUntil(() => sut.health().connected, 15_000);
      // The fresh connection ended the cool-down (the clock has not moved): the next publish is the trial.
      expect(sut.health().breakerState).toBe('half-open');
      await sut.publishExtractionRequested(tenant, aJob(), 'trial');
      expect(sut.health().breakerState).toBe('closed');
      await nextMessage(queue);
      await sut.onApplicationShutdown();
    } finally {
      await proxy.close();
    }
  });

  it('readiness makes the half-open trial itself, so a Manager out of rotation closes its breaker without a job', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    let now = 1_000_000;
    try {
      const { sut, queue, probe } = setup(`amqp://guest:guest@127.0.0.1:${proxy.port}`, () => now);
      await sut.waitForConnection(5_000);
      proxy.cut();
      await pollUntil(() => !sut.health().connected);
      for (let i = 0; i < 5; i++) await expect(sut.publishExtractionRequested(tenant, aJob(), 'r')).rejects.toMatchObject({ reason: 'not_connected' });
      now += 30_000;
      // Half-open while the broker is still away: no trial without a connection.
      expect(await probe.check()).toMatchObject({ status: 'degraded', breaker_state: 'half-open' });

      proxy.restore();
      await pollUntil(() => sut.health().connected, 15_000);
      expect(await probe.check()).toEqual({ status: 'up', breaker_state: 'closed' });
      const job = aJob();
      await sut.publishExtractionRequested(tenant, job, 'after');
      expect((await nextMessage(queue)).properties.headers?.jobId).toBe(job.id);
      await sut.onApplicationShutdown();
    } finally {
      await proxy.close();
    }
  });

  it('shuts down promptly while the broker is unreachable', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    try {
      const { sut } = setup(`amqp://guest:guest@127.0.0.1:${proxy.port}`);
      await sut.waitForConnection(5_000);
      await sut.publishExtractionRequested(tenant, aJob(), 'r');
      proxy.cut();
      await pollUntil(() => !sut.health().connected);
      await sut.onApplicationShutdown();
    } finally {
      await proxy.close();
    }
  });

  it('shuts down promptly when the broker refuses connections', async () => {
    const proxy = new FaultProxy(5672);
    await proxy.start();
    const port = proxy.port;
    await proxy.close();
    const { sut } = setup(`amqp://guest:guest@127.0.0.1:${port}`);
    await expect(sut.publishExtractionRequested(tenant, aJob(), 'r')).rejects.toMatchObject({ reason: 'not_connected' });
    await sut.onApplicationShutdown();
  });
});
