/**
 * The Worker as a whole: a job message in, an encrypted result in object storage and `completed` in
 * the job document out. Measures, against the machine's PostgreSQL and RabbitMQ, s3rver and the
 * MongoDB test server (both in this process):
 *
 * 1. `fetcher_bench.orders_1m` (1,000,000 rows) from publish to `completed`, against
 *      psql -c "\copy (select row_to_json(t) from fetcher_bench.orders_1m t) to '/dev/null'"
 *    in the same run (target: ratio <= 1.5);
 * 2. the worker's peak RSS (`/usr/bin/time -v`, one worker process per size) at 100k rows
 *    (`fetcher_bench.orders_100k`, a copy of the first 100k) and at 1M rows (targets: <= 150 MiB,
 *    and no more than 10% higher at 1M);
 * 3. p50/p99 from publish to `completed` for 200 small jobs (one 30-row table), 5 submitters.
 *
 * Jobs are seeded into MongoDB and published as signed messages directly (the Manager's job route is
 * not used here). Build first: `npm run build` (or the engine, platform, connectors, mongo test server
 * and worker workspaces), then `npx tsc -p bench/tsconfig.json`.
 *
 *   node bench/dist/worker-extraction.bench.js [--reps=3] [--small=200]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startMongoTestServer } from '@fetcher/mongo-test-server';
import { canonicalJson, deriveSubKeys, envelopeHeaders } from '@fetcher/platform';
import { connect } from 'amqplib';
import { Binary, MongoClient, type Db } from 'mongodb';
import { Client } from 'pg';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const REPS = Number(args.get('reps') ?? 3);
const SMALL_JOBS = Number(args.get('small') ?? 200);
const ROOT = join(__dirname, '..', '..');
const WORKER_MAIN = join(ROOT, 'apps', 'worker', 'dist', 'main.js');
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const MASTER = randomBytes(32);
const KEYS = deriveSubKeys(MASTER);

function uuidBinary(id: string): Binary {
  return new Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 0);
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

interface WorkerRun {
  readonly child: ChildProcess;
  readonly exited: Promise<{ peakRssKb: number }>;
  /** SIGTERM to the worker itself (not to /usr/bin/time, which would die without its report). */
  stop(): void;
}

/** Workers still running; ended if the bench fails, so none outlives it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function startWorker(env: Record<string, string>): Promise<WorkerRun> {
  const port = await freePort();
  // For profiling a run, e.g. WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn('/usr/bin/time', ['-v', process.execPath, ...nodeArgs, WORKER_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      HEALTH_PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(() => {
    running.delete(child);
    const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    return { peakRssKb: peak ? Number(peak[1]) : NaN };
  });
  for (const deadline = Date.now() + 30_000; ; ) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = (): void => {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const pid of children) process.kill(Number(pid), 'SIGTERM');
  };
  return { child, exited, stop };
}

async function psqlExport(table: string): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn('psql', ['-X', '-q', '-h', PG.host, '-p', String(PG.port), '-U', PG.user, '-d', PG.database, '-c', `\\copy (select row_to_json(t) from ${table} t) to '/dev/null'`], { stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error('psql failed');
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

async function main(): Promise<void> {
  const pg = new Client(PG);
  await pg.connect();
  await ensureBenchTable(pg, 1_000_000);
  await pg.query(`CREATE TABLE IF NOT EXISTS ${BENCH_SCHEMA}.orders_100k AS SELECT * FROM ${BENCH_SCHEMA}.${BENCH_TABLE} WHERE id <= 100000`);
  await pg.query(`CREATE TABLE IF NOT EXISTS ${BENCH_SCHEMA}.small_30 AS SELECT * FROM ${BENCH_SCHEMA}.${BENCH_TABLE} WHERE id <= 30`);
  await pg.end();

  const id = randomUUID().slice(0, 8);
  const s3Dir = mkdtempSync(join(tmpdir(), 'worker-bench-s3-'));
  const spoolDir = join(mkdtempSync(join(tmpdir(), 'worker-bench-spool-')), 'spool');
  const s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  const { port: s3Port } = await s3server.run();
  const s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
  const mongo = await startMongoTestServer();
  const mongoClient = await new MongoClient(mongo.uri).connect();
  const db = mongoClient.db(`worker_bench_${id}`);
  await db.collection('connection').insertOne({
    _id: uuidBinary(randomUUID()), product_name: 'bench', config_name: 'bench', type: 'POSTGRESQL', host: PG.host, port: PG.port,
    database_name: PG.database, username: PG.user, encryption_key_version: '1', created_at: new Date(), updated_at: new Date(), deleted_at: null,
  } as never);
  const queue = `worker-bench.${id}.queue`;
  const exchange = `worker-bench.${id}.events`;
  const amqp = await connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await amqp.createChannel();

  const env: Record<string, string> = {
    ENV_NAME: 'test', APP_ENC_KEY: MASTER.toString('base64'), RABBITMQ_HOST: '127.0.0.1', RABBITMQ_DEFAULT_USER: 'guest', RABBITMQ_DEFAULT_PASS: 'guest',
    RABBITMQ_FETCHER_WORK_QUEUE: queue, RABBITMQ_JOB_EVENTS_EXCHANGE: exchange, STREAMING_ENABLED: 'true',
    OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Port}`, OBJECT_STORAGE_BUCKET: 'bench', OBJECT_STORAGE_USE_PATH_STYLE: 'true',
    OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER', OBJECT_STORAGE_SECRET_KEY: 'S3RVER', MONGO_HOST: '127.0.0.1', MONGO_PORT: String(mongo.port),
    MONGO_NAME: `worker_bench_${id}`, RESULT_SPOOL_DIR: spoolDir, HOST_SAFETY_ALLOWLIST: '127.0.0.1/32', READYZ_DRAIN_DELAY_SEC: '-1', LOG_LEVEL: 'warn',
  };

  // Completion is read from the events exchange: the worker publishes job.completed right after the terminal write.
  const completed = new Map<string, () => void>();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const events = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(events.queue, exchange, 'job.*');
  await channel.consume(events.queue, (msg) => {
    if (!msg) return;
    const jobId = String(msg.properties.headers?.['ce-subject'] ?? '');
    if (msg.fields.routingKey !== 'job.completed') throw new Error(`job ${jobId} failed: ${msg.content.toString()}`);
    completed.get(jobId)?.();
  }, { noAck: true });

  const runJob = async (db: Db, table: string): Promise<number> => {
    const jobId = randomUUID();
    const mappedFields = { bench: { [table]: ['*'] } };
    await db.collection('job').insertOne({ _id: uuidBinary(jobId), metadata: { source: 'bench' }, mapped_fields: mappedFields, status: 'pending', dedup_active: true, request_hash: jobId, created_at: new Date() } as never);
    const body = Buffer.from(canonicalJson({ createdAt: new Date().toISOString(), jobId, mappedFields, metadata: { source: 'bench' } }));
    const done = new Promise<void>((resolve) => completed.set(jobId, resolve));
    const started = process.hrtime.bigint();
    const headers = envelopeHeaders({ key: KEYS.internalHmac, tenantId: '', exchange: '', routingKey: queue, body, jobId, now: new Date() });
    channel.sendToQueue(queue, body, { persistent: true, contentType: 'application/json', headers });
    await done;
    completed.delete(jobId);
    return Number(process.hrtime.bigint() - started) / 1e9;
  };

  try {
    out(`worker bench: ${REPS} repetitions of 1M rows (publish -> completed vs psql export), RSS per size, ${SMALL_JOBS} small jobs`);
    // 2: peak RSS, one fresh worker per size running exactly one job, so each peak belongs to one size.
    const rss: Record<string, number> = {};
    for (const [label, table] of [['100k', `${BENCH_SCHEMA}.orders_100k`], ['1M', `${BENCH_SCHEMA}.${BENCH_TABLE}`]] as const) {
      const worker = await startWorker(env);
      const seconds = await runJob(db, table);
      worker.stop();
      rss[label] = (await worker.exited).peakRssKb / 1024;
      out(`  ${label}: one job in ${seconds.toFixed(2)} s, worker peak RSS ${rss[label].toFixed(1)} MiB`);
    }
    out(`RSS 100k ${rss['100k'].toFixed(1)} MiB, 1M ${rss['1M'].toFixed(1)} MiB, growth ${(((rss['1M'] - rss['100k']) / rss['100k']) * 100).toFixed(1)}% (targets <= 150 MiB, <= 10%)`);

    // 1: publish -> completed for 1M rows against the psql export, alternating, in one worker.
    {
      const worker = await startWorker(env);
      const times: number[] = [];
      const exports: number[] = [];
      for (let rep = 0; rep < REPS; rep++) {
        exports.push(await psqlExport(`${BENCH_SCHEMA}.${BENCH_TABLE}`));
        times.push(await runJob(db, `${BENCH_SCHEMA}.${BENCH_TABLE}`));
        out(`  1M rep ${rep + 1}: psql ${exports[rep].toFixed(2)} s, worker ${times[rep].toFixed(2)} s, ratio ${(times[rep] / exports[rep]).toFixed(2)}`);
      }
      worker.stop();
      await worker.exited;
      out(`1M: psql median ${median(exports).toFixed(2)} s, worker median ${median(times).toFixed(2)} s, ratio ${(median(times) / median(exports)).toFixed(2)} (target <= 1.5)`);
    }

    // 3: small jobs, five submitters (the worker's concurrency).
    const worker = await startWorker(env);
    const latencies: number[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: 5 }, async () => {
      while (next < SMALL_JOBS) {
        next++;
        latencies.push(await runJob(db, `${BENCH_SCHEMA}.small_30`));
      }
    }));
    worker.stop();
    await worker.exited;
    out(`${SMALL_JOBS} small jobs: p50 ${(percentile(latencies, 50) * 1000).toFixed(0)} ms, p99 ${(percentile(latencies, 99) * 1000).toFixed(0)} ms`);
  } finally {
    await channel.deleteQueue(queue).catch(() => undefined);
    await channel.deleteExchange(exchange).catch(() => undefined);
    await amqp.close();
    await mongoClient.close();
    await mongo.close();
    s3.destroy();
    await s3server.close();
    rmSync(s3Dir, { recursive: true, force: true });
    rmSync(join(spoolDir, '..'), { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`worker bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
