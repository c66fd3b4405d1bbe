import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type MongoTestServer, startMongoTestServer } from '@fetcher/mongo-test-server';
import amqplib, { type Channel, type ChannelModel } from 'amqplib';
import { Client } from 'pg';
import { type AppProcess, freePort, startApp } from './support/app-process';
import { INTERNAL_PG, managerEnv } from './support/manager-env';
import {
  jobBody, jobDoc, publishJob, seedConnection, seedJob, signedHeaders, startWorkerWorld, until, type WorkerWorld,
} from './support/worker-harness';

// The built services with ENABLE_TELEMETRY=true export their spans over OTLP/HTTP to a collector
// started here (the exporter cannot run inside jest's sandbox, so only real processes show it).
// Each service is stopped with SIGTERM before the spans are read: the drain's app.close() flushes
// the batch, so the spans arriving at all proves the flush on shutdown.

interface ExportedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly kind: number;
}

class Collector {
  readonly spans: ExportedSpan[] = [];
  readonly services = new Set<string>();
  readonly paths: string[] = [];
  #server?: Server;

  async start(): Promise<string> {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        this.paths.push(req.url ?? '');
        this.#record(body);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  #record(body: string): void {
    type Attr = { key: string; value: { stringValue?: string } };
    const parsed = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: Attr[] }; scopeSpans?: { spans?: ExportedSpan[] }[] }[] };
    for (const rs of parsed.resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
      if (service) this.services.add(service);
      for (const scope of rs.scopeSpans ?? []) this.spans.push(...(scope.spans ?? []));
    }
  }
}

const SPAN_KIND = { SERVER: 2, PRODUCER: 4, CONSUMER: 5 } as const;

describe('telemetry of the built services', () => {
  const collector = new Collector();
  let endpoint: string;
  beforeAll(async () => {
    endpoint = await collector.start();
  });
  afterAll(() => collector.close());

  describe('manager', () => {
    let mongo: MongoTestServer;
    let broker: ChannelModel;
    let channel: Channel;
    let app: AppProcess | undefined;
    let queue: string | undefined;
    beforeAll(async () => {
      mongo = await startMongoTestServer();
      broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
      channel = await broker.createChannel();
    });
    afterAll(async () => {
      await app?.stop();
      if (queue) await channel.deleteQueue(queue).catch(() => undefined);
      await broker?.close();
      await mongo?.close();
    });

    it('traces requests: server spans, the publish (its trace in the message) and engine spans; flushed on SIGTERM', async () => {
      const port = await freePort();
      const env = managerEnv(mongo.uri, port, {
        ...INTERNAL_PG,
        RABBITMQ_HOST: '127.0.0.1',
        ENABLE_TELEMETRY: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_RESOURCE_SERVICE_NAME: 'fetcher-manager-e2e',
        OTEL_RESOURCE_SERVICE_VERSION: '7.7.7',
      });
      queue = env.RABBITMQ_FETCHER_WORK_QUEUE;
      app = await startApp('manager', port, env, '/readyz');
      expect(await (await fetch(`${app.baseUrl}/readyz`)).json()).toMatchObject({ version: '7.7.7' });
      const traceId = randomUUID().replace(/-/g, '');
      const created = await fetch(`${app.baseUrl}/v1/fetcher`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
        body: JSON.stringify({ dataRequest: { mappedFields: { 'pg-internal': { orders: ['id'] } } }, metadata: { source: 'telemetry-e2e' } }),
      });
      expect(created.status).toBe(202);
      // Internal datasources skip the connectivity dial, so the engine shows up in a schema check.
      const checkTrace = randomUUID().replace(/-/g, '');
      const checked = await fetch(`${app.baseUrl}/v1/management/connections/validate-schema`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: `00-${checkTrace}-00f067aa0ba902b7-01` },
        body: JSON.stringify({ mappedFields: { 'pg-internal': { orders: ['id'] } } }),
      });
      expect([200, 422]).toContain(checked.status);
      const message = await until(async () => (await channel.get(queue!, { noAck: true })) || undefined, 15_000, 'the job message');
      const exit = await app.stop();
      expect(exit.code).toBe(0);

      const request = await until(() => collector.spans.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER), 15_000, 'the request span');
      expect(request.name).toBe('POST /v1/fetcher');
      expect(request.parentSpanId).toBe('00f067aa0ba902b7');
      const inTrace = collector.spans.filter((s) => s.traceId === traceId);
      const publish = inTrace.find((s) => s.name === `publish ${queue}`);
      expect(publish?.kind).toBe(SPAN_KIND.PRODUCER);
      // Job creation's phases are spans of the request (job.insert, job.publish, ...); the publish is one of job.publish.
      const phase = inTrace.find((s) => s.name === 'job.publish');
      expect(phase?.parentSpanId).toBe(request.spanId);
      expect(publish?.parentSpanId).toBe(phase?.spanId);
      expect(message.properties.headers?.traceparent).toBe(`00-${traceId}-${publish?.spanId}-01`);
      const check = collector.spans.find((s) => s.traceId === checkTrace && s.kind === SPAN_KIND.SERVER);
      expect(check?.name).toBe('POST /v1/management/connections/validate-schema');
      const engine = collector.spans.find((s) => s.traceId === checkTrace && s.name.startsWith('engine.'));
      expect(engine?.name).toBe('engine.schema.validate');
      expect(engine?.parentSpanId).toBe(check?.spanId);
      expect(collector.services).toContain('fetcher-manager-e2e');
      expect(new Set(collector.paths)).toEqual(new Set(['/v1/traces']));
    });
  });

  describe('worker', () => {
    let world: WorkerWorld;
    let pg: Client;
    let worker: AppProcess | undefined;
    const schema = `tel_${randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      world = await startWorkerWorld();
      pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
      await pg.connect();
      await pg.query(`CREATE SCHEMA ${schema}`);
      await pg.query(`CREATE TABLE ${schema}.items (id int PRIMARY KEY, name text)`);
      await pg.query(`INSERT INTO ${schema}.items VALUES (1, 'one')`);
      await seedConnection(world.db, { configName: 'pg-tel', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres', password: 'not-needed-trust' });
    });
    afterAll(async () => {
      await worker?.stop();
      await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await pg?.end();
      await world?.close();
    });

    it('continues the publisher\'s trace: consumer span, engine spans and the event publish, flushed on SIGTERM', async () => {
      const port = await freePort();
      worker = await startApp('worker', port, world.env({
        HEALTH_PORT: String(port),
        ENABLE_TELEMETRY: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_RESOURCE_SERVICE_NAME: 'fetcher-worker-e2e',
        OTEL_RESOURCE_SERVICE_VERSION: '8.8.8',
      }));
      expect(await (await fetch(`${worker.baseUrl}/readyz`)).json()).toMatchObject({ version: '8.8.8' });

      const jobId = randomUUID();
      const mapped = { 'pg-tel': { [`${schema}.items`]: ['id', 'name'] } };
      await seedJob(world.db, jobId, mapped);
      const body = jobBody(jobId, mapped);
      const traceId = randomUUID().replace(/-/g, '');
      // traceparent travels beside the signed headers, as the Manager sends it.
      publishJob(world, body, { ...signedHeaders(body, jobId, world.workQueue), traceparent: `00-${traceId}-b7ad6b7169203331-01` });
      await until(async () => {
        const doc = await jobDoc(world, jobId);
        return doc?.status === 'completed' && !(doc.metadata as Record<string, unknown>).terminalEventPending ? doc : undefined;
      }, 60_000, 'the job to complete');
      const event = await until(() => world.events.find((e) => e.properties.headers?.['ce-subject']?.toString() === jobId), 15_000, 'the event');
      expect(String(event.properties.headers?.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      const exit = await worker.stop();
      expect(exit.code).toBe(0);

      const consume = await until(() => collector.spans.find((s) => s.traceId === traceId && s.kind === SPAN_KIND.CONSUMER), 15_000, 'the consumer span');
      expect(consume.name).toBe(`consume ${world.workQueue}`);
      expect(consume.parentSpanId).toBe('b7ad6b7169203331');
      const inTrace = collector.spans.filter((s) => s.traceId === traceId);
      const byName = (name: string) => inTrace.find((s) => s.name === name);
      expect(byName('engine.extraction.plan')?.parentSpanId).toBe(consume.spanId);
      expect(byName('engine.extraction.execute')?.parentSpanId).toBe(consume.spanId);
      const publish = byName(`publish ${world.eventsExchange}`);
      expect(publish?.kind).toBe(SPAN_KIND.PRODUCER);
      expect(publish?.parentSpanId).toBe(consume.spanId);
      expect(String(event.properties.headers?.traceparent)).toContain(publish!.spanId);
      expect(collector.services).toContain('fetcher-worker-e2e');
    });
  });
});
