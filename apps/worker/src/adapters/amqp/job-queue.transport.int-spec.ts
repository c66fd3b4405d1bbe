import { randomUUID } from 'node:crypto';
import { observabilityFromTracer, SpanKind, startTelemetry, type Telemetry } from '@fetcher/platform';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import amqp, { type AmqpConnectionManager } from 'amqp-connection-manager';
import amqplib, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { AmqpEventPublisher } from './event-publisher.amqp';
import { JOB_REQUESTED, JobQueueTransport } from './job-queue.transport';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

/** Polls `probe` every 20 ms until it returns a value, failing after `ms`. */
async function poll<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Telemetry registers process-wide OpenTelemetry globals: one start and shutdown per test.
describe('job consumer and event publisher tracing against a real RabbitMQ', () => {
  const id = randomUUID().slice(0, 8);
  const queue = `fetcher.it.worker-tel.${id}`;
  const exchange = `fetcher.it.worker-tel-events.${id}`;
  let admin: ChannelModel;
  let channel: Channel;
  let connection: AmqpConnectionManager;
  const events: ConsumeMessage[] = [];

  beforeAll(async () => {
    admin = await amqplib.connect(BROKER);
    channel = await admin.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: true });
    const q = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(q.queue, exchange, 'job.*');
    await channel.consume(q.queue, (msg) => msg && events.push(msg), { noAck: true });
    connection = amqp.connect([BROKER]);
  });
  afterAll(async () => {
    await channel.deleteQueue(queue).catch(() => undefined);
    await admin.close();
    await connection.close();
  });

  async function consumeOne(telemetry: Telemetry | null, headers: Record<string, unknown>): Promise<{ handled: ConsumeMessage; transport: JobQueueTransport; publisher: AmqpEventPublisher }> {
    const publisher = new AmqpEventPublisher(() => connection, exchange, telemetry);
    const transport = new JobQueueTransport(() => connection, {
      queue,
      concurrency: 1,
      telemetry,
      setupTopology: async (ch) => { await ch.assertQueue(queue, { durable: false }); },
    });
    const handled: ConsumeMessage[] = [];
    transport.addHandler(JOB_REQUESTED, async (msg: ConsumeMessage) => {
      // What the engine does through its port, and the terminal event, both inside the delivery.
      if (telemetry) observabilityFromTracer(telemetry.tracer).startSpan('engine.extraction.execute').end();
      await publisher.publish({ routingKey: 'job.completed', body: Buffer.from('{}'), headers: { 'ce-subject': String(msg.properties.headers?.jobId) } });
      handled.push(msg);
      return { kind: 'handled' };
    }, true);
    await new Promise<void>((resolve, reject) => transport.listen((error?: unknown) => (error ? reject(error instanceof Error ? error : new Error('listen failed')) : resolve())));
    channel.sendToQueue(queue, Buffer.from('{}'), { headers });
    const message = await poll(() => handled[0]);
    return { handled: message, transport, publisher };
  }

  it('handles a delivery in a consumer span continuing the sender\'s trace, with the engine and event spans inside it', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = startTelemetry({ enabled: true, serviceName: 'fetcher-worker-it', exporter });
    const traceId = randomUUID().replace(/-/g, '');
    const jobId = randomUUID();
    const { transport, publisher } = await consumeOne(telemetry, { jobId, traceparent: `00-${traceId}-b7ad6b7169203331-01` });
    try {
      const event = await poll(() => events.find((e) => String(e.properties.headers?.['ce-subject']) === jobId));
      await transport.drain();
      await telemetry.flush();
      const spans = exporter.getFinishedSpans();
      const consume = spans.find((s) => s.name === `consume ${queue}`);
      expect(consume?.kind).toBe(SpanKind.CONSUMER);
      expect(consume?.spanContext().traceId).toBe(traceId);
      expect(consume?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      const engine = spans.find((s) => s.name === 'engine.extraction.execute');
      const publish = spans.find((s) => s.name === `publish ${exchange}`);
      expect(engine?.parentSpanContext?.spanId).toBe(consume?.spanContext().spanId);
      expect(publish?.kind).toBe(SpanKind.PRODUCER);
      expect(publish?.parentSpanContext?.spanId).toBe(consume?.spanContext().spanId);
      expect(event.properties.headers?.traceparent).toBe(`00-${traceId}-${publish?.spanContext().spanId}-01`);
    } finally {
      await transport.close();
      await publisher.close();
      await telemetry.shutdown();
    }
  });

  it('without telemetry, carries no trace headers on the event', async () => {
    const jobId = randomUUID();
    const { transport, publisher } = await consumeOne(null, { jobId });
    try {
      const event = await poll(() => events.find((e) => String(e.properties.headers?.['ce-subject']) === jobId));
      expect(event.properties.headers?.traceparent).toBeUndefined();
    } finally {
      await transport.close();
      await publisher.close();
    }
  });
});
