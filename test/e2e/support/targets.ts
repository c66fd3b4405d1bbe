import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { type MongoTestServer, startMongoTestServer } from '@fetcher/mongo-test-server';
import amqplib from 'amqplib';
import { type AppProcess, freePort, startApp } from './app-process';
import { managerEnv } from './manager-env';
import { startStandaloneProcess } from './standalone-process';
import { MASTER_KEY, startWorkerWorld, type WorkerWorld } from './worker-harness';

/**
 * The deployments the HTTP suites run against, with the same assertions:
 * - `production`: the built Manager (and, when asked, the built Worker) as child processes on the
 *   MongoDB test server, RabbitMQ, Redis and s3rver;
 * - `standalone`: the built standalone service, one process on a fresh data directory, without the
 *   demo database (the suites bring their own tables).
 */
export type TargetName = 'production' | 'standalone';
export const TARGETS: readonly TargetName[] = ['production', 'standalone'];

export interface TargetOptions {
  /** Run the Worker too, so that jobs complete (the standalone process always has one). */
  readonly worker?: boolean;
  /** Variables both apps get, such as `DATASOURCE_<X>_*` internal datasources. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Serve GET /v1/fetcher/{id}/result (RESULT_DOWNLOAD_ENABLED=true; production then gets the
   * Worker's OBJECT_STORAGE_* settings too, so it needs `worker`).
   */
  readonly resultDownload?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions
  readonly body: any;
}

/** Where a test's datasource lives, as the apps dial it: the machine's PostgreSQL on loopback. */
export const POSTGRES = Object.freeze({ host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });

/** A `POST /v1/management/connections` body for that PostgreSQL (trust authentication: any password works). */
export function postgresConnection(configName: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { configName, type: 'POSTGRESQL', host: POSTGRES.host, port: POSTGRES.port, databaseName: POSTGRES.database, userName: POSTGRES.user, password: 'pw', ...overrides };
}

export interface Target {
  readonly name: TargetName;
  readonly baseUrl: string;
  /** Sent with every request. Authorisation is off in both targets, so there is nothing to add today. */
  readonly headers: Readonly<Record<string, string>>;
  /** The key the service derives every other key from; a test reads results with it alone. */
  readonly masterKey: Buffer;
  /** A request with the target's headers; JSON answers are parsed, anything else is kept as text. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** The stored result of a job, by its `resultPath`: the base64 text object storage holds. */
  readResult(resultPath: string): Promise<string>;
  /** Replaces a stored result (to alter it). */
  writeResult(resultPath: string, text: string): Promise<void>;
  /** The environment under which `fetcher result decrypt <jobId>` reads this target's results. */
  readonly cliEnv: Readonly<Record<string, string>>;
  /** What the processes wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export function startTarget(name: TargetName, options: TargetOptions = {}): Promise<Target> {
  return name === 'production' ? startProduction(options) : startStandalone(options);
}

function caller(baseUrl: string, defaults: Readonly<Record<string, string>>): Target['call'] {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...defaults, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text === '' ? undefined : text;
    if (text.startsWith('{') || text.startsWith('[')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

async function startStandalone(options: TargetOptions): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-e2e-target-'));
  const masterKey = randomBytes(32);
  // Loopback datasources need no allowlist here: standalone mode adds loopback to it by itself
  // (see app-env.ts), which is what these suites rely on, as a user with a local database does.
  const service = await startStandaloneProcess(await freePort(), dataDir, {
    APP_ENC_KEY: masterKey.toString('base64'),
    FETCHER_DEMO: 'false',
    ...(options.resultDownload ? { RESULT_DOWNLOAD_ENABLED: 'true' } : {}),
    ...options.env,
  }).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const headers = {};
  return {
    name: 'standalone',
    baseUrl: service.baseUrl,
    headers,
    masterKey,
    call: caller(service.baseUrl, headers),
    readResult: (resultPath) => readFile(join(dataDir, 'objects', resultPath), 'utf8'),
    writeResult: (resultPath, text) => writeFile(join(dataDir, 'objects', resultPath), text),
    cliEnv: { FETCHER_DATA_DIR: dataDir, APP_ENC_KEY: masterKey.toString('base64') },
    output: () => service.output(),
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startProduction(options: TargetOptions): Promise<Target> {
  // With a Worker, the world holds MongoDB, the queue names, object storage and the Worker's env.
  const world: WorkerWorld | undefined = options.worker ? await startWorkerWorld() : undefined;
  const mongo: MongoTestServer | undefined = world ? undefined : await startMongoTestServer();
  const apps: AppProcess[] = [];
  const masterKey = world ? MASTER_KEY : randomBytes(32);
  const port = await freePort();
  const env = managerEnv(world?.mongo.uri ?? mongo!.uri, port, {
    APP_ENC_KEY: masterKey.toString('base64'),
    RABBITMQ_HOST: '127.0.0.1',
    REDIS_HOST: '127.0.0.1',
    ...(world ? { MONGO_NAME: world.env().MONGO_NAME, RABBITMQ_FETCHER_WORK_QUEUE: world.workQueue } : {}),
    ...(world && options.resultDownload ? { RESULT_DOWNLOAD_ENABLED: 'true', ...objectStorageEnv(world) } : {}),
    ...options.env,
  });
  const stop = async () => {
    await Promise.all(apps.map((app) => app.stop()));
    if (world) await world.close();
    else {
      await deleteQueue(env.RABBITMQ_FETCHER_WORK_QUEUE);
      await mongo?.close();
    }
  };
  try {
    apps.push(await startApp('manager', port, env, '/readyz'));
    if (world) {
      const healthPort = await freePort();
      apps.push(await startApp('worker', healthPort, world.env({ HEALTH_PORT: String(healthPort), ...options.env }), '/readyz'));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const headers = {};
  const baseUrl = apps[0].baseUrl;
  return {
    name: 'production',
    baseUrl,
    headers,
    masterKey,
    call: caller(baseUrl, headers),
    readResult: async (resultPath) => {
      if (!world) throw new Error('this target runs no Worker: start it with { worker: true }');
      const out = await world.s3.send(new GetObjectCommand({ Bucket: world.bucket, Key: `${world.prefix}${resultPath}` }));
      return (out.Body as { transformToString(): Promise<string> }).transformToString();
    },
    writeResult: async (resultPath, text) => {
      if (!world) throw new Error('this target runs no Worker: start it with { worker: true }');
      await world.s3.send(new PutObjectCommand({ Bucket: world.bucket, Key: `${world.prefix}${resultPath}`, Body: text }));
    },
    cliEnv: { APP_ENC_KEY: masterKey.toString('base64'), ...(world ? objectStorageEnv(world) : {}) },
    output: () => apps.map((app) => app.output()).join('\n'),
    stop,
  };
}

/** The Worker's object storage settings, which the Manager's result route and the CLI read as well. */
function objectStorageEnv(world: WorkerWorld): Record<string, string> {
  const env = world.env();
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('OBJECT_STORAGE_') && name !== 'OBJECT_STORAGE_MULTIPART_THRESHOLD_MB' && name !== 'OBJECT_STORAGE_TTL'));
}

/** The Manager declares its own work queue; a Manager-only target removes it afterwards. */
async function deleteQueue(queue: string): Promise<void> {
  const broker = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
  broker.on('error', () => undefined);
  try {
    const channel = await broker.createChannel();
    channel.on('error', () => undefined);
    await channel.deleteQueue(queue);
  } finally {
    await broker.close().catch(() => undefined);
  }
}
