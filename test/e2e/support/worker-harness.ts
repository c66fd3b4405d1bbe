/**
 * What the Worker's end-to-end suites share: the services it talks to (s3rver and the MongoDB test
 * server in this process; the machine's RabbitMQ and PostgreSQL under unique names), a job seeded
 * the way the Manager stores it, messages signed with node:crypto following the envelope rules
 * (independently of the platform code), and readers for the dead-letter queue and the events.
 */
import { createCipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { type Channel, type ChannelModel, connect, type ConsumeMessage } from 'amqplib';
import { Binary, type Db, MongoClient } from 'mongodb';
import { openResult, subKeyOf } from './result-envelope';
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

export const MASTER_KEY = randomBytes(32);
export const subKey = (info: string): Buffer => subKeyOf(MASTER_KEY, info);
export const INTERNAL_HMAC = subKey('fetcher-internal-hmac-v1');

export interface WorkerWorld {
  readonly id: string;
  readonly workQueue: string;
  readonly eventsExchange: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly spoolDir: string;
  /** s3rver's directory: incomplete multipart uploads live there, invisible to the S3 API it offers. */
  readonly s3Dir: string;
  readonly s3: S3Client;
  readonly s3Port: number;
  readonly mongo: MongoTestServer;
  readonly mongoClient: MongoClient;
  readonly db: Db;
  readonly amqp: ChannelModel;
  readonly channel: Channel;
  readonly deadLetters: ConsumeMessage[];
  readonly events: ConsumeMessage[];
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
  stopS3(): Promise<void>;
  /** Starts object storage again on the same port and directory. */
  restartS3(): Promise<void>;
}

/** `amqpPort`: a RabbitMQ on another loopback port (the broker-restart bench runs its own node). */
export async function startWorkerWorld(options: { amqpPort?: number } = {}): Promise<WorkerWorld> {
  const amqpPort = options.amqpPort ?? 5672;
  const id = randomUUID().slice(0, 8);
  const s3Dir = mkdtempSync(join(tmpdir(), `worker-e2e-s3-${id}-`));
  const spoolDir = join(mkdtempSync(join(tmpdir(), `worker-e2e-spool-${id}-`)), 'spool');
  let s3server: { close(): Promise<void> } | undefined = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  const { port: s3Port } = await (s3server as unknown as { run(): Promise<{ port: number }> }).run();
  const s3 = new S3Client({
    endpoint: `http://127.0.0.1:${s3Port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const bucket = `worker-e2e-${id}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));

  const mongo = await startMongoTestServer();
  const mongoClient = await new MongoClient(mongo.uri).connect();
  const db = mongoClient.db(`worker_e2e_${id}`);

  const workQueue = `worker-e2e.${id}.queue`;
  const eventsExchange = `worker-e2e.${id}.events`;
  const amqp = await connect(`amqp://guest:guest@127.0.0.1:${amqpPort}`);
  const channel = await amqp.createChannel();
  // The same declarations the worker makes, so the test can publish before it starts.
  await channel.assertExchange('fetcher.dlx', 'direct', { durable: true });
  await channel.assertQueue(workQueue, { durable: true, arguments: { 'x-dead-letter-exchange': 'fetcher.dlx', 'x-dead-letter-routing-key': 'fetcher.dlq.key' } });
  await channel.assertExchange(eventsExchange, 'topic', { durable: true });
  // Copies of every dead letter reach this private queue; ours are the ones that died in our work queue.
  const deadLetters: ConsumeMessage[] = [];
  const dlq = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(dlq.queue, 'fetcher.dlx', 'fetcher.dlq.key');
  await channel.consume(dlq.queue, (msg) => {
    if (!msg) return;
    const deaths = msg.properties.headers?.['x-death'] as { queue?: string }[] | undefined;
    if (deaths?.some((d) => d.queue === workQueue)) deadLetters.push(msg);
  }, { noAck: true });
  const events: ConsumeMessage[] = [];
  const eventsQueue = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(eventsQueue.queue, eventsExchange, 'job.*');
  await channel.consume(eventsQueue.queue, (msg) => msg && events.push(msg), { noAck: true });

  const prefix = `pfx-${id}/`;
  const stopS3 = async () => {
    const server = s3server;
    s3server = undefined;
    await server?.close();
  };
  const restartS3 = async () => {
    const server = new S3rver({ port: s3Port, address: '127.0.0.1', silent: true, directory: s3Dir });
    await server.run();
    s3server = server;
  };
  return {
    id, workQueue, eventsExchange, bucket, prefix, spoolDir, s3Dir, s3, s3Port, mongo, mongoClient, db, amqp, channel, deadLetters, events,
    stopS3,
    restartS3,
    env: (extra = {}) => ({
      ENV_NAME: 'test',
      APP_ENC_KEY: MASTER_KEY.toString('base64'),
      RABBITMQ_HOST: '127.0.0.1',
      RABBITMQ_PORT_AMQP: String(amqpPort),
      RABBITMQ_DEFAULT_USER: 'guest',
      RABBITMQ_DEFAULT_PASS: 'guest',
      RABBITMQ_FETCHER_WORK_QUEUE: workQueue,
      RABBITMQ_JOB_EVENTS_EXCHANGE: eventsExchange,
      STREAMING_ENABLED: 'true',
      OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      OBJECT_STORAGE_BUCKET: bucket,
      OBJECT_STORAGE_KEY_PREFIX: prefix,
      OBJECT_STORAGE_USE_PATH_STYLE: 'true',
      OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER',
      OBJECT_STORAGE_SECRET_KEY: 'S3RVER',
      MONGO_HOST: '127.0.0.1',
      MONGO_PORT: String(mongo.port),
      MONGO_NAME: `worker_e2e_${id}`,
      RESULT_SPOOL_DIR: spoolDir,
      HOST_SAFETY_ALLOWLIST: '127.0.0.1/32,::1/128,localhost',
      READYZ_DRAIN_DELAY_SEC: '-1',
      ...extra,
    }),
    close: async () => {
      await channel.deleteQueue(workQueue).catch(() => undefined);
      await channel.deleteExchange(eventsExchange).catch(() => undefined);
      await amqp.close().catch(() => undefined);
      await mongoClient.close();
      await mongo.close();
      s3.destroy();
      await stopS3();
      rmSync(s3Dir, { recursive: true, force: true });
      rmSync(join(spoolDir, '..'), { recursive: true, force: true });
    },
  };
}

export function uuidBinary(id: string): Binary {
  return new Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 0);
}

/** A stored connection as the Manager writes it: the password sealed with the credential key. */
export async function seedConnection(db: Db, doc: { configName: string; type: string; host: string; port: number; database: string; user: string; password?: string }): Promise<void> {
  await db.collection('connection').insertOne({
    _id: uuidBinary(randomUUID()),
    product_name: 'reporter',
    config_name: doc.configName,
    type: doc.type,
    host: doc.host,
    port: doc.port,
    database_name: doc.database,
    username: doc.user,
    ...(doc.password ? { password_encrypted: seal(subKey('fetcher-credentials-v1'), doc.password) } : {}),
    encryption_key_version: '1',
    created_at: new Date(),
    updated_at: new Date(),
    deleted_at: null,
  } as never);
}

/** A pending job as the Manager inserts it. */
export async function seedJob(
  db: Db,
  jobId: string,
  mappedFields: Record<string, Record<string, string[]>>,
  metadata: Record<string, unknown> = { source: 'reporter' },
  filters?: Record<string, unknown>,
): Promise<void> {
  await db.collection('job').insertOne({
    _id: uuidBinary(jobId),
    metadata,
    mapped_fields: mappedFields,
    ...(filters ? { filters } : {}),
    status: 'pending',
    dedup_active: true,
    request_hash: randomBytes(32).toString('hex'),
    created_at: new Date(),
    completed_at: null,
    dispatched_at: new Date(),
    dispatch_attempts: 1,
  } as never);
}

export function seal(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  return Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64');
}

/** JSON with keys sorted at every depth, as the Manager sends bodies. */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface SignOptions {
  readonly t?: number;
  readonly tenantId?: string;
  readonly key?: Buffer;
  readonly version?: string;
}

/** Envelope v1 headers: HMAC over "t\nv1\ntenant\njobId\nexchange\nroutingKey\n" + body. */
export function signedHeaders(body: Buffer, jobId: string, routingKey: string, options: SignOptions = {}): Record<string, unknown> {
  const t = String(options.t ?? Math.floor(Date.now() / 1000));
  const tenant = options.tenantId ?? '';
  const prefix = Buffer.from(`${t}\nv1\n${tenant}\n${jobId}\n\n${routingKey}\n`, 'utf8');
  const signature = createHmac('sha256', options.key ?? INTERNAL_HMAC).update(prefix).update(body).digest('hex');
  return {
    jobId,
    'X-Request-Id': randomUUID(),
    'x-retry-count': 0,
    ...(tenant ? { 'X-Tenant-ID': tenant } : {}),
    'x-message-signature': signature,
    t,
    'signature-version': options.version ?? 'v1',
  };
}

export function jobBody(jobId: string, mappedFields: Record<string, Record<string, string[]>>, metadata: Record<string, unknown> = { source: 'reporter' }): Buffer {
  return Buffer.from(sortedJson({ createdAt: new Date().toISOString(), jobId, mappedFields, metadata }), 'utf8');
}

export function publishJob(world: WorkerWorld, body: Buffer, headers: Record<string, unknown>): void {
  world.channel.sendToQueue(world.workQueue, body, { persistent: true, contentType: 'application/json', headers });
}

/** Reads a stored result with only the master key: derive the storage key, decrypt, and check the HMAC. */
export async function readResult(world: WorkerWorld, key: string): Promise<{ plaintext: Buffer; hmac: string }> {
  const out = await world.s3.send(new GetObjectCommand({ Bucket: world.bucket, Key: key }));
  return openResult(MASTER_KEY, await (out.Body as { transformToString(): Promise<string> }).transformToString());
}

export async function listObjects(world: WorkerWorld): Promise<string[]> {
  const out = await world.s3.send(new ListObjectsV2Command({ Bucket: world.bucket }));
  return (out.Contents ?? []).map((o) => o.Key ?? '');
}

/** Polls `probe` until it returns a value, within `ms` (the worker reports only through its side effects). */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 60_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function jobDoc(world: WorkerWorld, jobId: string): Promise<Record<string, unknown> | undefined> {
  return (await world.db.collection('job').findOne({ _id: uuidBinary(jobId) } as never)) ?? undefined;
}

/** The spool files the Worker holds (each process spools into its own subdirectory), with their sizes. */
export function spoolFiles(world: WorkerWorld): { name: string; size: number }[] {
  return readdirSync(world.spoolDir, { recursive: true, encoding: 'utf8' })
    .map((path) => ({ path: join(world.spoolDir, path), name: path.split('/').pop() ?? path }))
    .flatMap(({ path, name }) => {
      const info = statSync(path, { throwIfNoEntry: false });
      return info?.isFile() ? [{ name, size: info.size }] : [];
    });
}
