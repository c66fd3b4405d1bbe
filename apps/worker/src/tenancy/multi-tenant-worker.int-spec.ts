import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { decryptResult, envelopeHeaders } from '@fetcher/platform';
import { createTenantVhosts, type TenantVhosts } from '@fetcher/platform/testing';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantRecord } from '@fetcher/tenant-manager-test-server';
import { type Channel, type ChannelModel, connect, type ConsumeMessage } from 'amqplib';
import { Binary, type Db, MongoClient } from 'mongodb';
import { Client } from 'pg';
import { JobQueueTransport } from '../adapters/amqp/job-queue.transport';
import { loadWorkerConfig, type WorkerConfig } from '../config/worker.config';
import { prepareSpoolDir } from '../jobs/result/spool-dir';
import { WorkerModule } from '../worker.module';

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

const WORK_QUEUE = 'fetcher.extract-external-data.queue';
const EVENTS_EXCHANGE = 'fetcher.job.events';

/** Messages arriving on a queue, awaited by predicate (event-driven; no polling). */
class Inbox {
  readonly seen: ConsumeMessage[] = [];
  readonly #waiting: { predicate: (m: ConsumeMessage) => boolean; resolve: (m: ConsumeMessage) => void }[] = [];

  push(msg: ConsumeMessage): void {
    this.seen.push(msg);
    for (const w of [...this.#waiting]) {
      if (!w.predicate(msg)) continue;
      this.#waiting.splice(this.#waiting.indexOf(w), 1);
      w.resolve(msg);
    }
  }

  next(predicate: (m: ConsumeMessage) => boolean): Promise<ConsumeMessage> {
    const found = this.seen.find(predicate);
    return found ? Promise.resolve(found) : new Promise((resolve) => this.#waiting.push({ predicate, resolve }));
  }
}

const header = (msg: ConsumeMessage, name: string): string => {
  const value: unknown = msg.properties.headers?.[name];
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
};
const uuidBinary = (id: string) => new Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 4);

/**
 * The Worker in multi-tenant mode, in process, against real services: the tenant-manager test
 * server, a vhost per tenant on the local broker, a database per tenant on the MongoDB test server,
 * Redis for tenant events, s3rver and PostgreSQL as the datasource.
 */
describe('the Worker in multi-tenant mode: each tenant\'s job on its own database, vhost and object prefix', () => {
  const id = randomUUID().slice(0, 6);
  const acme = `acme${id}`;
  const beta = `beta${id}`;
  const schema = `mtw_${id}`;
  const apiKey = `key-${randomUUID()}`;
  const masterKey = randomBytes(32);
  const prefix = `pfx-${id}/`;
  const bucket = `mtw-${id}`;
  let mongo: MongoTestServer;
  let mongoClient: MongoClient;
  let tm: TenantManagerTestServer;
  let vhosts: TenantVhosts;
  let s3server: { close(): Promise<void> };
  let s3: S3Client;
  let s3Dir: string;
  let spoolRoot: string;
  let pg: Client;
  let app: INestApplication;
  let config: WorkerConfig;
  let port: number;
  const brokers: ChannelModel[] = [];
  const channels = new Map<string, Channel>();
  const events = new Map<string, Inbox>();
  const deadLetters = new Map<string, Inbox>();

  const db = (tenantId: string): Db => mongoClient.db(`mtw_${id}_${tenantId}`);
  const record = (tenantId: string): TenantRecord => {
    const v = vhosts.byTenant(tenantId);
    return {
      name: tenantId, status: 'active',
      services: {
        fetcher: {
          id: tenantId, tenantSlug: tenantId,
          databases: { fetcher: { mongodb: { uri: mongo.uri, database: `mtw_${id}_${tenantId}` } } },
          messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: v.vhost, username: v.username, password: v.password } },
        },
      },
    };
  };

  async function seed(tenantId: string, jobId: string, table: string): Promise<Record<string, Record<string, string[]>>> {
    const mapped = { 'pg-main': { [`${schema}.${table}`]: ['*'] } };
    await db(tenantId).collection('job').insertOne({
      _id: uuidBinary(jobId), metadata: { source: 'reporter' }, mapped_fields: mapped, status: 'pending', dedup_active: true,
      request_hash: randomBytes(32).toString('hex'), created_at: new Date(), completed_at: null,
    } as never);
    return mapped;
  }

  /** A job message as the Manager sends it, signed for `signedFor`, published into `vhostOf`'s vhost. */
  function publish(vhostOf: string, signedFor: string, jobId: string, mapped: unknown): void {
    const body = Buffer.from(JSON.stringify({ createdAt: new Date().toISOString(), jobId, mappedFields: mapped, metadata: { source: 'reporter' } }));
    const headers = envelopeHeaders({ key: config.ring.current().internalHmac, tenantId: signedFor, exchange: '', routingKey: WORK_QUEUE, body, jobId, now: new Date() });
    channels.get(vhostOf)!.sendToQueue(WORK_QUEUE, body, { persistent: true, contentType: 'application/json', headers: { ...headers, jobId } });
  }

  async function readResult(key: string): Promise<{ plaintext: string; hmac: string }> {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const chunks: Buffer[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (chunks.push(chunk), done()) });
    const text = await (out.Body as { transformToString(): Promise<string> }).transformToString();
    const { hmac } = await decryptResult(Readable.from([Buffer.from(text)]), sink, config.ring.current());
    return { plaintext: Buffer.concat(chunks).toString('utf8'), hmac };
  }

  beforeAll(async () => {
    pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${schema}.a_rows (id int PRIMARY KEY, who text); INSERT INTO ${schema}.a_rows VALUES (1, 'acme')`);
    await pg.query(`CREATE TABLE ${schema}.b_rows (id int PRIMARY KEY, who text); INSERT INTO ${schema}.b_rows VALUES (2, 'beta')`);

    s3Dir = mkdtempSync(join(tmpdir(), `mtw-s3-${id}-`));
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
    const { port: s3Port } = await server.run();
    s3server = server;
    s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));

    mongo = await startMongoTestServer();
    mongoClient = await new MongoClient(mongo.uri).connect();
    vhosts = createTenantVhosts([acme, beta]);
    tm = await startTenantManagerTestServer({ tenants: { apiKey, tenants: { [acme]: record(acme), [beta]: record(beta) } } });

    for (const tenantId of [acme, beta]) {
      await db(tenantId).collection('connection').insertOne({
        _id: uuidBinary(randomUUID()), product_name: 'reporter', config_name: 'pg-main', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432,
        database_name: 'postgres', username: 'postgres', encryption_key_version: '1', created_at: new Date(), updated_at: new Date(), deleted_at: null,
      } as never);
      // Look at each vhost as guest: its events and its dead letters.
      const broker = await connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(vhosts.byTenant(tenantId).vhost)}`);
      brokers.push(broker);
      const ch = await broker.createChannel();
      channels.set(tenantId, ch);
      await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
      const inbox = new Inbox();
      const q = await ch.assertQueue('', { exclusive: true });
      await ch.bindQueue(q.queue, EVENTS_EXCHANGE, 'job.*');
      await ch.consume(q.queue, (m) => m && inbox.push(m), { noAck: true });
      events.set(tenantId, inbox);
      const dead = new Inbox();
      await ch.consume('fetcher.dlq', (m) => m && dead.push(m), { noAck: true });
      deadLetters.set(tenantId, dead);
    }

    spoolRoot = mkdtempSync(join(tmpdir(), `mtw-spool-${id}-`));
    port = 20_000 + Math.floor(Math.random() * 20_000);
    config = loadWorkerConfig({
      ENV_NAME: 'staging',
      APP_ENC_KEY: masterKey.toString('base64'),
      RABBITMQ_FETCHER_WORK_QUEUE: WORK_QUEUE,
      RABBITMQ_JOB_EVENTS_EXCHANGE: EVENTS_EXCHANGE,
      STREAMING_ENABLED: 'true',
      OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      OBJECT_STORAGE_BUCKET: bucket,
      OBJECT_STORAGE_KEY_PREFIX: prefix,
      OBJECT_STORAGE_USE_PATH_STYLE: 'true',
      OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER',
      OBJECT_STORAGE_SECRET_KEY: 'S3RVER',
      MONGO_NAME: 'unused_in_multi_tenant_mode',
      RESULT_SPOOL_DIR: join(spoolRoot, 'spool'),
      HOST_SAFETY_ALLOWLIST: '127.0.0.1/32',
      HEALTH_PORT: String(port),
      MULTI_TENANT_ENABLED: 'true',
      MULTI_TENANT_URL: tm.url,
      MULTI_TENANT_SERVICE_API_KEY: apiKey,
      MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true',
      MULTI_TENANT_REDIS_HOST: '127.0.0.1',
    });
    await prepareSpoolDir(config.storage.spoolDir);
    app = await NestFactory.create(WorkerModule.forRoot(config), new FastifyAdapter(), { logger: false });
    app.connectMicroservice({ strategy: app.get(JobQueueTransport) });
    await app.init();
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    for (const broker of brokers) await broker.close().catch(() => undefined);
    await mongoClient?.close();
    await mongo?.close();
    await tm?.close();
    vhosts?.cleanup();
    s3?.destroy();
    await s3server?.close();
    if (s3Dir) rmSync(s3Dir, { recursive: true, force: true });
    if (spoolRoot) rmSync(spoolRoot, { recursive: true, force: true });
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pg?.end();
  });

  it('runs each tenant\'s job against its own database; results under {tenantId}/, events on its own vhost', async () => {
    const jobA = randomUUID();
    const jobB = randomUUID();
    publish(acme, acme, jobA, await seed(acme, jobA, 'a_rows'));
    publish(beta, beta, jobB, await seed(beta, jobB, 'b_rows'));

    const eventA = await events.get(acme)!.next((m) => header(m, 'ce-subject') === jobA);
    const eventB = await events.get(beta)!.next((m) => header(m, 'ce-subject') === jobB);
    expect(header(eventA, 'ce-type')).toBe('studio.lerian.job.completed');
    expect(header(eventA, 'ce-tenantid')).toBe(acme);
    expect(header(eventA, 'X-Tenant-ID')).toBe(acme);
    expect(header(eventB, 'ce-tenantid')).toBe(beta);
    // Each vhost carries its own tenant's events only.
    expect(events.get(acme)!.seen.some((m) => header(m, 'ce-subject') === jobB)).toBe(false);
    expect(events.get(beta)!.seen.some((m) => header(m, 'ce-subject') === jobA)).toBe(false);

    const docA = await db(acme).collection('job').findOne({ _id: uuidBinary(jobA) } as never);
    expect(docA).toMatchObject({ status: 'completed', result_path: `${acme}/external-data/${jobA}.json` });
    // Nothing of acme's job reached beta's database, and the other way round.
    expect(await db(beta).collection('job').findOne({ _id: uuidBinary(jobA) } as never)).toBeNull();
    expect(await db(acme).collection('job').findOne({ _id: uuidBinary(jobB) } as never)).toBeNull();

    const resultA = await readResult(`${prefix}${acme}/external-data/${jobA}.json`);
    expect(JSON.parse(resultA.plaintext)).toEqual({ 'pg-main': { [`${schema}.a_rows`]: [{ id: 1, who: 'acme' }] } });
    expect(resultA.hmac).toBe(docA?.result_hmac);
    const resultB = await readResult(`${prefix}${beta}/external-data/${jobB}.json`);
    expect(JSON.parse(resultB.plaintext)).toEqual({ 'pg-main': { [`${schema}.b_rows`]: [{ id: 2, who: 'beta' }] } });

    const keys = (await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents?.map((o) => o.Key) ?? [];
    expect(keys.sort()).toEqual([`${prefix}${acme}/external-data/${jobA}.json`, `${prefix}${beta}/external-data/${jobB}.json`].sort());
  });

  it('dead-letters a message signed for one tenant that was published into another tenant\'s vhost', async () => {
    const jobA = randomUUID();
    const mapped = await seed(acme, jobA, 'a_rows');
    publish(beta, acme, jobA, mapped);
    const dead = await deadLetters.get(beta)!.next((m) => header(m, 'jobId') === jobA);
    expect(header(dead, 'X-Tenant-ID')).toBe(acme);
    // It ran nowhere: acme's job is still pending, and beta's database never heard of it.
    expect(await db(acme).collection('job').findOne({ _id: uuidBinary(jobA) } as never)).toMatchObject({ status: 'pending' });
    expect(await db(beta).collection('job').findOne({ _id: uuidBinary(jobA) } as never)).toBeNull();
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/fetcher_worker_messages_rejected_total\{reason="tenant_mismatch"\} 1/);
  });

  it('reports the shared database and vhost as n/a on /readyz, with the tenant-manager and the events Redis', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = (await res.json()) as { checks: Record<string, { status: string }> };
    expect(res.status).toBe(200);
    expect(body.checks).toMatchObject({
      mongodb: { status: 'n/a' }, rabbitmq: { status: 'n/a' }, s3: { status: 'up' }, multi_tenant_redis: { status: 'up' }, tenant_manager: { status: 'up' },
    });
  });
});
