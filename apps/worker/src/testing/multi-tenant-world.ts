import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- test support, not app code: it runs the in-process Mongo test server
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

export const MT_WORK_QUEUE = 'fetcher.extract-external-data.queue';
export const MT_EVENTS_EXCHANGE = 'fetcher.job.events';

/** Messages arriving on a queue, awaited by predicate (event-driven; no polling). */
export class Inbox {
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

export const header = (msg: ConsumeMessage, name: string): string => {
  const value: unknown = msg.properties.headers?.[name];
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
};
export const uuidBinary = (id: string): Binary => new Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 4);

export interface MultiTenantWorld {
  readonly id: string;
  /** `APP_ENC_KEY` of the Worker (base64), for a Manager that shares it. */
  readonly masterKey: string;
  /** The tenant-manager's API key. */
  readonly apiKey: string;
  readonly mongoUri: string;
  readonly schema: string;
  readonly prefix: string;
  readonly bucket: string;
  readonly port: number;
  readonly app: INestApplication;
  readonly config: WorkerConfig;
  readonly s3: S3Client;
  readonly tm: TenantManagerTestServer;
  /** Each tenant's `fetcher.job.events` (job.*), seen from its vhost. */
  readonly events: ReadonlyMap<string, Inbox>;
  /** Each tenant's `fetcher.dlq`. */
  readonly deadLetters: ReadonlyMap<string, Inbox>;
  db(tenantId: string): Db;
  /** The tenant's entry in the tenant-manager test server, as first served. */
  record(tenantId: string): TenantRecord;
  /** A pending job in the tenant's database, reading `table` (in the world's schema) over `configName` (`pg-main`). */
  seed(tenantId: string, jobId: string, table: string, configName?: string): Promise<Record<string, Record<string, string[]>>>;
  /** A job message signed for `signedFor`, published into `vhostOf`'s vhost. */
  publish(vhostOf: string, signedFor: string, jobId: string, mapped: unknown): void;
  readResult(key: string): Promise<{ plaintext: string; hmac: string }>;
  listObjects(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The Worker in multi-tenant mode, in process, against real services: the tenant-manager test
 * server, a vhost per tenant on the local broker, a database per tenant on the MongoDB test server
 * (each with a stored `pg-main` connection to the local PostgreSQL), Redis for tenant events, and
 * s3rver. `tables` are created in a fresh schema, each with one row `{id, who: <table>}`.
 */
export async function startMultiTenantWorld(tenantIds: readonly string[], tables: readonly string[], env: Record<string, string> = {}): Promise<MultiTenantWorld> {
  const id = randomUUID().slice(0, 6);
  const schema = `mtw_${id}`;
  const apiKey = `key-${randomUUID()}`;
  const masterKey = randomBytes(32);
  const prefix = `pfx-${id}/`;
  const bucket = `mtw-${id}`;
  const cleanups: (() => unknown)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  };
  try {
    const pg = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
    await pg.connect();
    cleanups.push(() => pg.end());
    await pg.query(`CREATE SCHEMA ${schema}`);
    cleanups.push(() => pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    for (const [i, table] of tables.entries()) {
      await pg.query(`CREATE TABLE ${schema}.${table} (id int PRIMARY KEY, who text); INSERT INTO ${schema}.${table} VALUES (${i + 1}, '${table}')`);
    }

    const s3Dir = mkdtempSync(join(tmpdir(), `mtw-s3-${id}-`));
    cleanups.push(() => rmSync(s3Dir, { recursive: true, force: true }));
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
    const { port: s3Port } = await server.run();
    cleanups.push(() => server.close());
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    cleanups.push(() => s3.destroy());
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));

    const mongo: MongoTestServer = await startMongoTestServer();
    cleanups.push(() => mongo.close());
    const mongoClient = await new MongoClient(mongo.uri).connect();
    cleanups.push(() => mongoClient.close());
    const vhosts: TenantVhosts = createTenantVhosts(tenantIds);
    cleanups.push(() => vhosts.cleanup());
    const database = (tenantId: string) => `mtw_${id}_${tenantId}`;
    const db = (tenantId: string): Db => mongoClient.db(database(tenantId));
    const record = (tenantId: string): TenantRecord => {
      const v = vhosts.byTenant(tenantId);
      return {
        name: tenantId, status: 'active',
        services: {
          fetcher: {
            id: tenantId, tenantSlug: tenantId,
            databases: { fetcher: { mongodb: { uri: mongo.uri, database: database(tenantId) } } },
            messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: v.vhost, username: v.username, password: v.password } },
          },
        },
      };
    };
    const tm = await startTenantManagerTestServer({ tenants: { apiKey, tenants: Object.fromEntries(tenantIds.map((t) => [t, record(t)])) } });
    cleanups.push(() => tm.close());

    const channels = new Map<string, Channel>();
    const events = new Map<string, Inbox>();
    const deadLetters = new Map<string, Inbox>();
    const brokers: ChannelModel[] = [];
    cleanups.push(async () => {
      for (const broker of brokers) await broker.close().catch(() => undefined);
    });
    for (const tenantId of tenantIds) {
      await db(tenantId).collection('connection').insertOne({
        _id: uuidBinary(randomUUID()), product_name: 'reporter', config_name: 'pg-main', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432,
        database_name: 'postgres', username: 'postgres', encryption_key_version: '1', created_at: new Date(), updated_at: new Date(), deleted_at: null,
      } as never);
      // Look at each vhost as guest: its events and its dead letters.
      const broker = await connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(vhosts.byTenant(tenantId).vhost)}`);
      brokers.push(broker);
      const ch = await broker.createChannel();
      channels.set(tenantId, ch);
      await ch.assertExchange(MT_EVENTS_EXCHANGE, 'topic', { durable: true });
      const inbox = new Inbox();
      const q = await ch.assertQueue('', { exclusive: true });
      await ch.bindQueue(q.queue, MT_EVENTS_EXCHANGE, 'job.*');
      await ch.consume(q.queue, (m) => m && inbox.push(m), { noAck: true });
      events.set(tenantId, inbox);
      const dead = new Inbox();
      await ch.consume('fetcher.dlq', (m) => m && dead.push(m), { noAck: true });
      deadLetters.set(tenantId, dead);
    }

    const spoolRoot = mkdtempSync(join(tmpdir(), `mtw-spool-${id}-`));
    cleanups.push(() => rmSync(spoolRoot, { recursive: true, force: true }));
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const config = loadWorkerConfig({
      ENV_NAME: 'staging',
      APP_ENC_KEY: masterKey.toString('base64'),
      RABBITMQ_FETCHER_WORK_QUEUE: MT_WORK_QUEUE,
      RABBITMQ_JOB_EVENTS_EXCHANGE: MT_EVENTS_EXCHANGE,
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
      ...env,
    });
    await prepareSpoolDir(config.storage.spoolDir);
    const app = await NestFactory.create(WorkerModule.forRoot(config), new FastifyAdapter(), { logger: false });
    cleanups.push(() => app.close());
    app.connectMicroservice({ strategy: app.get(JobQueueTransport) });
    await app.init();
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');

    return {
      id, masterKey: masterKey.toString('base64'), apiKey, mongoUri: mongo.uri, schema, prefix, bucket, port, app, config, s3, tm, events, deadLetters, db, record, close,
      async seed(tenantId, jobId, table, configName = 'pg-main') {
        const mapped = { [configName]: { [`${schema}.${table}`]: ['*'] } };
        await db(tenantId).collection('job').insertOne({
          _id: uuidBinary(jobId), metadata: { source: 'reporter' }, mapped_fields: mapped, status: 'pending', dedup_active: true,
          request_hash: randomBytes(32).toString('hex'), created_at: new Date(), completed_at: null,
        } as never);
        return mapped;
      },
      publish(vhostOf, signedFor, jobId, mapped) {
        const body = Buffer.from(JSON.stringify({ createdAt: new Date().toISOString(), jobId, mappedFields: mapped, metadata: { source: 'reporter' } }));
        const headers = envelopeHeaders({ key: config.ring.current().internalHmac, tenantId: signedFor, exchange: '', routingKey: MT_WORK_QUEUE, body, jobId, now: new Date() });
        channels.get(vhostOf)!.sendToQueue(MT_WORK_QUEUE, body, { persistent: true, contentType: 'application/json', headers: { ...headers, jobId } });
      },
      async readResult(key) {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const chunks: Buffer[] = [];
        const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (chunks.push(chunk), done()) });
        const text = await (out.Body as { transformToString(): Promise<string> }).transformToString();
        const { hmac } = await decryptResult(Readable.from([Buffer.from(text)]), sink, config.ring.current());
        return { plaintext: Buffer.concat(chunks).toString('utf8'), hmac };
      },
      async listObjects() {
        const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }));
        return (out.Contents ?? []).map((o) => o.Key ?? '');
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
