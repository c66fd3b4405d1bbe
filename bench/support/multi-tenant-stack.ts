/**
 * The service in multi-tenant mode for a bench: the tenant-manager test server, the MongoDB test
 * server (a database per tenant, indexes provisioned) and s3rver in this process; a vhost and broker
 * user per tenant on the machine's RabbitMQ (made with `rabbitmqctl import_definitions`, one call for
 * all of them, removed at the end); the built Worker, and optionally the built Manager, as child
 * processes in multi-tenant mode. `runJob` times one tenant's job from its `POST /v1/fetcher` (with a
 * token signed for the tenant) to its `job.completed` event on the tenant's vhost.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ACTIVE_HASH_INDEX, CONNECTION_COLLECTION, CONNECTION_INDEXES, createIndexArgs, JOB_COLLECTION, JOB_INDEXES } from '@fetcher/contracts';
import { startMongoTestServer } from '@fetcher/mongo-test-server';
import { startTenantManagerTestServer, type TenantRecord } from '@fetcher/tenant-manager-test-server';
import { type ChannelModel, connect } from 'amqplib';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { startManager, startWorker, type RunningApp } from './app-process';

const WORK_QUEUE = 'fetcher.extract-external-data.queue';
const EVENTS_EXCHANGE = 'fetcher.job.events';

export interface MultiTenantStackOptions {
  readonly tenants: number;
  /** Start the Manager too (for `runJob`); a Worker-only stack is enough to watch it idle. */
  readonly manager: boolean;
  /** Extra environment for the Worker. */
  readonly workerEnv?: Record<string, string>;
}

export interface MultiTenantStack {
  readonly tenantIds: readonly string[];
  readonly worker: RunningApp;
  /** One of the Worker's `/metrics` samples (labels as written, e.g. `{pool="mongodb"}`); NaN when absent. */
  metric(series: string): Promise<number>;
  /** Seconds from the POST to the `job.completed` event; throws on any other outcome. */
  runJob(tenantId: string, table: string): Promise<number>;
  close(): Promise<void>;
}

export async function startMultiTenantStack(options: MultiTenantStackOptions): Promise<MultiTenantStack> {
  const id = randomUUID().slice(0, 8);
  const tenantIds = Array.from({ length: options.tenants }, (_, i) => `b${id}-${i}`);
  const cleanups: (() => unknown)[] = [];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch((error: unknown) => console.error('cleanup:', error));
  };
  try {
    const s3Dir = mkdtempSync(join(tmpdir(), 'bench-mt-s3-'));
    cleanups.push(() => rmSync(s3Dir, { recursive: true, force: true }));
    // s3rver ships no types.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };
    const s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
    const { port: s3Port } = await s3server.run();
    cleanups.push(() => s3server.close());
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    s3.destroy();

    const mongo = await startMongoTestServer();
    cleanups.push(() => mongo.close());
    const admin = await new MongoClient(mongo.uri).connect();
    cleanups.push(() => admin.close());
    const database = (tenantId: string) => `bench_${tenantId.replace(/-/g, '_')}`;
    for (const tenantId of tenantIds) {
      const db = admin.db(database(tenantId));
      for (const index of CONNECTION_INDEXES) await db.collection(CONNECTION_COLLECTION).createIndex(...createIndexArgs(index));
      for (const index of [...JOB_INDEXES, ACTIVE_HASH_INDEX]) await db.collection(JOB_COLLECTION).createIndex(...createIndexArgs(index));
    }

    const vhosts = createVhosts(id, tenantIds);
    cleanups.push(() => vhosts.cleanup());
    const apiKey = `bench-${randomUUID()}`;
    const record = (tenantId: string): TenantRecord => {
      const v = vhosts.byTenant.get(tenantId)!;
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

    // Each tenant's job events, seen as guest on its vhost.
    const finished = new Map<string, { at: bigint; routingKey: string; body: string }>();
    const waiting = new Map<string, () => void>();
    const brokers: ChannelModel[] = [];
    cleanups.push(async () => {
      for (const broker of brokers) await broker.close().catch(() => undefined);
    });
    for (const tenantId of tenantIds) {
      const broker = await connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(vhosts.byTenant.get(tenantId)!.vhost)}`);
      brokers.push(broker);
      const ch = await broker.createChannel();
      await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
      const q = await ch.assertQueue('', { exclusive: true });
      await ch.bindQueue(q.queue, EVENTS_EXCHANGE, 'job.*');
      await ch.consume(q.queue, (msg) => {
        if (!msg) return;
        const jobId = String(msg.properties.headers?.['ce-subject'] ?? '');
        finished.set(jobId, { at: process.hrtime.bigint(), routingKey: msg.fields.routingKey, body: msg.content.toString() });
        waiting.get(jobId)?.();
      }, { noAck: true });
    }

    const masterKey = randomBytes(32).toString('base64');
    const tenancy: Record<string, string> = {
      ENV_NAME: 'staging', LOG_LEVEL: 'warn', APP_ENC_KEY: masterKey, RABBITMQ_FETCHER_WORK_QUEUE: WORK_QUEUE, RABBITMQ_JOB_EVENTS_EXCHANGE: EVENTS_EXCHANGE,
      MONGO_NAME: 'unused_in_multi_tenant_mode', HOST_SAFETY_ALLOWLIST: '127.0.0.1/32', READYZ_DRAIN_DELAY_SEC: '-1',
      MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_URL: tm.url, MULTI_TENANT_SERVICE_API_KEY: apiKey, MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true',
      MULTI_TENANT_REDIS_HOST: '127.0.0.1',
    };
    const spoolDir = join(mkdtempSync(join(tmpdir(), 'bench-mt-spool-')), 'spool');
    cleanups.push(() => rmSync(join(spoolDir, '..'), { recursive: true, force: true }));
    const worker = await startWorker({
      ...tenancy, STREAMING_ENABLED: 'true', OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Port}`, OBJECT_STORAGE_BUCKET: 'bench',
      OBJECT_STORAGE_USE_PATH_STYLE: 'true', OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER', OBJECT_STORAGE_SECRET_KEY: 'S3RVER', RESULT_SPOOL_DIR: spoolDir,
      ...options.workerEnv,
    });
    cleanups.push(async () => {
      worker.stop();
      await worker.exited;
    });
    const metric = async (series: string): Promise<number> => {
      const text = await (await fetch(`${worker.baseUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
    };
    // The initial sync has run once every tenant's consumer is up.
    for (const deadline = Date.now() + 120_000; (await metric('worker_tenant_consumer_active')) !== tenantIds.length;) {
      if (Date.now() > deadline) throw new Error(`the Worker consumes ${await metric('worker_tenant_consumer_active')} of ${tenantIds.length} tenants after 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const tokens = new Map<string, string>();
    let api = '';
    if (options.manager) {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const manager = await startManager({ ...tenancy, MULTI_TENANT_JWT_PUBLIC_KEY: Buffer.from(await exportSPKI(publicKey)).toString('base64') });
      cleanups.push(async () => {
        manager.stop();
        await manager.exited;
      });
      api = manager.baseUrl;
      const now = Math.floor(Date.now() / 1000);
      for (const tenantId of tenantIds) {
        tokens.set(tenantId, await new SignJWT({ tenantId }).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).setIssuedAt(now).setExpirationTime(now + 6 * 3600).sign(privateKey));
        await send(`${api}/v1/management/connections`, tokens.get(tenantId)!, 201, {
          configName: 'bench', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: 'postgres', password: 'unused-with-trust-auth',
        }, { 'x-product-name': 'bench' });
      }
    }

    return {
      tenantIds,
      worker,
      metric,
      async runJob(tenantId, table) {
        const token = tokens.get(tenantId);
        if (!token) throw new Error('runJob needs a stack started with the Manager');
        const started = process.hrtime.bigint();
        // Each job its own correlationId, so the Manager's duplicate detection never answers one with another.
        const { jobId } = (await send(`${api}/v1/fetcher`, token, 202, {
          dataRequest: { mappedFields: { bench: { [table]: ['*'] } } }, metadata: { source: 'bench', correlationId: randomUUID() },
        })) as { jobId: string };
        if (!finished.has(jobId)) await new Promise<void>((resolve) => waiting.set(jobId, resolve));
        const end = finished.get(jobId)!;
        waiting.delete(jobId);
        finished.delete(jobId);
        if (end.routingKey !== 'job.completed') throw new Error(`job ${jobId} of ${tenantId} ended ${end.routingKey}: ${end.body}`);
        return Number(end.at - started) / 1e9;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function send(url: string, token: string, expected: number, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

interface Vhosts {
  readonly byTenant: ReadonlyMap<string, { vhost: string; username: string; password: string }>;
  cleanup(): void;
}

/**
 * A vhost per tenant with the queues the tenant-manager's platform provisions (the work queue
 * dead-lettered to `fetcher.dlx` → `fetcher.dlq`), a broker user with rights on it only, and guest
 * rights for the bench's own event listener: one `rabbitmqctl import_definitions` for them all.
 */
function createVhosts(id: string, tenantIds: readonly string[]): Vhosts {
  const byTenant = new Map(tenantIds.map((tenantId) => [tenantId, { vhost: `bench-${tenantId}`, username: `u-${tenantId}`, password: randomBytes(12).toString('hex') }]));
  const all = [...byTenant.values()];
  const hash = (password: string): string => {
    const salt = randomBytes(4);
    return Buffer.concat([salt, createHash('sha256').update(Buffer.concat([salt, Buffer.from(password)])).digest()]).toString('base64');
  };
  const definitions = {
    users: all.map((t) => ({ name: t.username, password_hash: hash(t.password), hashing_algorithm: 'rabbit_password_hashing_sha256', tags: [] })),
    vhosts: all.map((t) => ({ name: t.vhost })),
    permissions: all.flatMap((t) => [
      { user: t.username, vhost: t.vhost, configure: '.*', write: '.*', read: '.*' },
      { user: 'guest', vhost: t.vhost, configure: '.*', write: '.*', read: '.*' },
    ]),
    exchanges: all.map((t) => ({ name: 'fetcher.dlx', vhost: t.vhost, type: 'direct', durable: true, auto_delete: false, internal: false, arguments: {} })),
    queues: all.flatMap((t) => [
      { name: WORK_QUEUE, vhost: t.vhost, durable: true, auto_delete: false, arguments: { 'x-dead-letter-exchange': 'fetcher.dlx', 'x-dead-letter-routing-key': 'fetcher.dlq.key' } },
      { name: 'fetcher.dlq', vhost: t.vhost, durable: true, auto_delete: false, arguments: {} },
    ]),
    bindings: all.map((t) => ({ source: 'fetcher.dlx', vhost: t.vhost, destination: 'fetcher.dlq', destination_type: 'queue', routing_key: 'fetcher.dlq.key', arguments: {} })),
  };
  // rabbitmqctl runs as the broker's user, so the file must be readable by others.
  const work = mkdtempSync(join(tmpdir(), `bench-vhosts-${id}-`));
  chmodSync(work, 0o755);
  const file = join(work, 'definitions.json');
  writeFileSync(file, JSON.stringify(definitions), { mode: 0o644 });
  try {
    execFileSync('rabbitmqctl', ['-q', 'import_definitions', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    byTenant,
    cleanup() {
      const list = (names: string[]) => `[${names.map((n) => `<<"${n}">>`).join(',')}]`;
      execFileSync('rabbitmqctl', ['-q', 'eval', [
        `lists:foreach(fun(V) -> rabbit_vhost:delete(V, <<"bench">>) end, ${list(all.map((t) => t.vhost))}),`,
        `lists:foreach(fun(U) -> rabbit_auth_backend_internal:delete_user(U, <<"bench">>) end, ${list(all.map((t) => t.username))}).`,
      ].join(' ')], { stdio: ['ignore', 'pipe', 'pipe'] });
    },
  };
}
