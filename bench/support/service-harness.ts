/**
 * The whole service for a bench: s3rver and the MongoDB test server in this process, the machine's
 * RabbitMQ (queue and exchange unique to the run) and PostgreSQL, the built Manager as a child process
 * with one PostgreSQL connection created over HTTP, and Workers started on demand. `runJob` times a
 * job from its `POST /v1/fetcher` to its `job.completed` event (published by the Worker right after
 * the terminal write) and checks `GET /v1/fetcher/{id}` answers `completed`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startMongoTestServer } from '@fetcher/mongo-test-server';
import { connect } from 'amqplib';
import { startManager, startWorker, type RunningApp } from './app-process';
import { createConnection, createJob, readJob } from './manager-api';

export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

export interface HarnessOptions {
  /** Extra environment for both apps (e.g. telemetry). */
  readonly env?: Record<string, string>;
  /** Extra node flags for each Worker, after its start script's own. */
  readonly workerNodeArgs?: readonly string[];
}

export interface JobTiming {
  readonly jobId: string;
  /** Seconds from the POST to the `job.completed` event. */
  readonly seconds: number;
}

/** A job's terminal event as the harness received it. */
export interface TerminalEvent {
  /** `process.hrtime.bigint()` when it arrived. */
  readonly at: bigint;
  readonly routingKey: string;
  readonly body: string;
}

export interface ServiceHarness {
  /** The run's work queue and events exchange (span names carry them). */
  readonly names: { readonly queue: string; readonly exchange: string };
  /** The Manager's base URL, and the Workers' spool directory. */
  readonly api: string;
  readonly spoolDir: string;
  /** The Manager's process id (for sampling /proc). */
  readonly managerPid: number;
  /** The job's terminal event (`job.completed`, `job.failed` or `job.canceled`), once it has arrived. */
  terminalEvent(jobId: string): Promise<TerminalEvent>;
  /** Starts a Worker with the harness's environment plus `env`. */
  startWorker(env?: Record<string, string>): Promise<RunningApp>;
  runJob(table: string): Promise<JobTiming>;
  close(): Promise<void>;
}

export async function startServiceHarness(options: HarnessOptions = {}): Promise<ServiceHarness> {
  const id = randomUUID().slice(0, 8);
  const s3Dir = mkdtempSync(join(tmpdir(), 'bench-s3-'));
  const spoolDir = join(mkdtempSync(join(tmpdir(), 'bench-spool-')), 'spool');
  const s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  const { port: s3Port } = await s3server.run();
  const s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
  const mongo = await startMongoTestServer();
  const queue = `bench.${id}.queue`;
  const exchange = `bench.${id}.events`;
  const amqp = await connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await amqp.createChannel();

  // What both apps share: the master key, the database, the broker and its names, loopback datasources.
  const shared: Record<string, string> = {
    ENV_NAME: 'test', LOG_LEVEL: 'warn', APP_ENC_KEY: randomBytes(32).toString('base64'), MONGO_HOST: '127.0.0.1', MONGO_PORT: String(mongo.port),
    MONGO_NAME: `bench_${id}`, RABBITMQ_HOST: '127.0.0.1', RABBITMQ_DEFAULT_USER: 'guest', RABBITMQ_DEFAULT_PASS: 'guest',
    RABBITMQ_FETCHER_WORK_QUEUE: queue, RABBITMQ_JOB_EVENTS_EXCHANGE: exchange, HOST_SAFETY_ALLOWLIST: '127.0.0.1/32', READYZ_DRAIN_DELAY_SEC: '-1',
    ...options.env,
  };
  const workerEnv: Record<string, string> = {
    ...shared, STREAMING_ENABLED: 'true', OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Port}`, OBJECT_STORAGE_BUCKET: 'bench',
    OBJECT_STORAGE_USE_PATH_STYLE: 'true', OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER', OBJECT_STORAGE_SECRET_KEY: 'S3RVER', RESULT_SPOOL_DIR: spoolDir,
  };

  // When each job's event arrived (it may arrive before its POST has answered), and who waits for it.
  const finished = new Map<string, TerminalEvent>();
  const waiting = new Map<string, () => void>();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const events = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(events.queue, exchange, 'job.*');
  await channel.consume(events.queue, (msg) => {
    if (!msg) return;
    const jobId = String(msg.properties.headers?.['ce-subject'] ?? '');
    finished.set(jobId, { at: process.hrtime.bigint(), routingKey: msg.fields.routingKey, body: msg.content.toString() });
    waiting.get(jobId)?.();
  }, { noAck: true });

  const workers: RunningApp[] = [];
  let manager: RunningApp | undefined;
  const close = async (): Promise<void> => {
    for (const worker of workers) worker.stop();
    await Promise.all(workers.map((w) => w.exited));
    manager?.stop();
    await manager?.exited;
    await channel.deleteQueue(queue).catch(() => undefined);
    await channel.deleteExchange(exchange).catch(() => undefined);
    await amqp.close();
    await mongo.close();
    s3.destroy();
    await s3server.close();
    rmSync(s3Dir, { recursive: true, force: true });
    rmSync(join(spoolDir, '..'), { recursive: true, force: true });
  };
  try {
    manager = await startManager(shared);
    await createConnection(manager.baseUrl, 'bench', {
      configName: 'bench', type: 'POSTGRESQL', host: PG.host, port: PG.port, databaseName: PG.database, userName: PG.user, password: 'unused-with-trust-auth',
    });
  } catch (error) {
    await close();
    throw error;
  }
  const api = manager.baseUrl;

  const terminalEvent = async (jobId: string): Promise<TerminalEvent> => {
    if (!finished.has(jobId)) await new Promise<void>((resolve) => waiting.set(jobId, resolve));
    const end = finished.get(jobId) as TerminalEvent;
    waiting.delete(jobId);
    finished.delete(jobId);
    return end;
  };

  return {
    names: { queue, exchange },
    api,
    spoolDir,
    managerPid: manager.pid,
    terminalEvent,
    async startWorker(env = {}) {
      const worker = await startWorker({ ...workerEnv, ...env }, options.workerNodeArgs ?? []);
      const stop = (): void => {
        const at = workers.indexOf(worker);
        if (at >= 0) workers.splice(at, 1);
        worker.stop();
      };
      workers.push(worker);
      return { ...worker, stop };
    },
    async runJob(table) {
      const started = process.hrtime.bigint();
      // Each job its own correlationId, so the Manager's duplicate detection never answers one with another.
      const jobId = await createJob(api, { dataRequest: { mappedFields: { bench: { [table]: ['*'] } } }, metadata: { source: 'bench', correlationId: randomUUID() } });
      const end = await terminalEvent(jobId);
      if (end.routingKey !== 'job.completed') throw new Error(`job ${jobId} failed: ${end.body}`);
      const job = await readJob(api, jobId);
      if (job.status !== 'completed') throw new Error(`job ${jobId} is ${job.status} after its completed event`);
      return { jobId, seconds: Number(end.at - started) / 1e9 };
    },
    close,
  };
}
