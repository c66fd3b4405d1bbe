/**
 * The Worker as a whole, driven through the Manager's HTTP API: a connection and a job created over
 * HTTP, an encrypted result in object storage and `completed` in the job out. The built Manager and
 * Worker run as child processes against the machine's PostgreSQL and RabbitMQ, with s3rver and the
 * MongoDB test server in this process. Measures:
 *
 * 1. `fetcher_bench.orders_1m` (1,000,000 rows) from `POST /v1/fetcher` to `completed`, against
 *      psql -c "\copy (select row_to_json(t) from fetcher_bench.orders_1m t) to '/dev/null'"
 *    in the same run (target: ratio <= 1.5);
 * 2. the Worker's peak RSS (`/usr/bin/time -v`, one Worker process per size) at 100k rows
 *    (`fetcher_bench.orders_100k`, a copy of the first 100k) and at 1M rows (targets: <= 150 MiB,
 *    and no more than 10% higher at 1M);
 * 3. p50/p99 from `POST /v1/fetcher` to `completed` for 200 small jobs (one 30-row table), 5 submitters.
 *
 * 1 and 2 run once per `OBJECT_STORAGE_MULTIPART_THRESHOLD_MB` given: 8 (the default: parts go up
 * while the extraction runs) and 1024 (the 215 MB result is one PutObject at the end), because
 * s3rver's CompleteMultipartUpload copies and hashes the whole object again.
 *
 * The moment a job completes is taken from its `job.completed` event, which the Worker publishes
 * right after the terminal write, and then checked with `GET /v1/fetcher/{id}`. Each job carries its
 * own `metadata.correlationId`, so the Manager's duplicate detection never answers one with another.
 * The Worker runs with the node flags of its start script. Build first: `npm run build -w
 * @fetcher/engine -w @fetcher/platform -w @fetcher/contracts -w @fetcher/connectors -w @fetcher/mongo-test-server -w
 * @fetcher/manager -w @fetcher/worker`, then `npx tsc -p bench/tsconfig.json`.
 *
 *   node bench/dist/worker-extraction.bench.js [--reps=3] [--small=200] [--thresholds=8,1024]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startMongoTestServer } from '@fetcher/mongo-test-server';
import { connect } from 'amqplib';
import { Client } from 'pg';
import { startManager, startWorker, workerStartFlags, type RunningApp } from './support/app-process';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';
import { createConnection, createJob, readJob } from './support/manager-api';
import { median, percentile } from './support/percentile';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const REPS = Number(args.get('reps') ?? 3);
const SMALL_JOBS = Number(args.get('small') ?? 200);
/** Multipart thresholds (MiB) to run the 1M comparison and the RSS pair with; 8 is the Worker's default. */
const THRESHOLDS_MB = (args.get('thresholds') ?? '8,1024').split(',').map(Number);
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
// For profiling a run, e.g. WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
const WORKER_NODE_ARGS = (process.env.WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

const out = (line: string): boolean => process.stdout.write(`${line}\n`);

async function psqlExport(table: string): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn('psql', ['-X', '-q', '-h', PG.host, '-p', String(PG.port), '-U', PG.user, '-d', PG.database, '-c', `\\copy (select row_to_json(t) from ${table} t) to '/dev/null'`], { stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error('psql failed');
  return Number(process.hrtime.bigint() - started) / 1e9;
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
  const queue = `worker-bench.${id}.queue`;
  const exchange = `worker-bench.${id}.events`;
  const amqp = await connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await amqp.createChannel();

  // What both apps share: the master key, the database, the broker and its names, loopback datasources.
  const shared: Record<string, string> = {
    ENV_NAME: 'test', LOG_LEVEL: 'warn', APP_ENC_KEY: randomBytes(32).toString('base64'), MONGO_HOST: '127.0.0.1', MONGO_PORT: String(mongo.port),
    MONGO_NAME: `worker_bench_${id}`, RABBITMQ_HOST: '127.0.0.1', RABBITMQ_DEFAULT_USER: 'guest', RABBITMQ_DEFAULT_PASS: 'guest',
    RABBITMQ_FETCHER_WORK_QUEUE: queue, RABBITMQ_JOB_EVENTS_EXCHANGE: exchange, HOST_SAFETY_ALLOWLIST: '127.0.0.1/32', READYZ_DRAIN_DELAY_SEC: '-1',
  };
  const workerEnv: Record<string, string> = {
    ...shared, STREAMING_ENABLED: 'true', OBJECT_STORAGE_ENDPOINT: `http://127.0.0.1:${s3Port}`, OBJECT_STORAGE_BUCKET: 'bench',
    OBJECT_STORAGE_USE_PATH_STYLE: 'true', OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER', OBJECT_STORAGE_SECRET_KEY: 'S3RVER', RESULT_SPOOL_DIR: spoolDir,
  };

  // When each job's event arrived (it may arrive before its POST has answered), and who waits for it.
  const finished = new Map<string, { at: bigint; ok: boolean; body: string }>();
  const waiting = new Map<string, () => void>();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const events = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(events.queue, exchange, 'job.*');
  await channel.consume(events.queue, (msg) => {
    if (!msg) return;
    const jobId = String(msg.properties.headers?.['ce-subject'] ?? '');
    finished.set(jobId, { at: process.hrtime.bigint(), ok: msg.fields.routingKey === 'job.completed', body: msg.content.toString() });
    waiting.get(jobId)?.();
  }, { noAck: true });

  let manager: RunningApp | undefined;
  try {
    manager = await startManager(shared);
    await createConnection(manager.baseUrl, 'bench', {
      configName: 'bench', type: 'POSTGRESQL', host: PG.host, port: PG.port, databaseName: PG.database, userName: PG.user, password: 'unused-with-trust-auth',
    });
    const api = manager.baseUrl;

    /** Seconds from `POST /v1/fetcher` to the job's `completed`, which `GET /v1/fetcher/{id}` then confirms. */
    const runJob = async (table: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const jobId = await createJob(api, { dataRequest: { mappedFields: { bench: { [table]: ['*'] } } }, metadata: { source: 'bench', correlationId: randomUUID() } });
      if (!finished.has(jobId)) await new Promise<void>((resolve) => waiting.set(jobId, resolve));
      const end = finished.get(jobId) as { at: bigint; ok: boolean; body: string };
      waiting.delete(jobId);
      finished.delete(jobId);
      if (!end.ok) throw new Error(`job ${jobId} failed: ${end.body}`);
      const job = await readJob(api, jobId);
      if (job.status !== 'completed') throw new Error(`job ${jobId} is ${job.status} after its completed event`);
      return Number(end.at - started) / 1e9;
    };

    const flags = [...workerStartFlags(), ...WORKER_NODE_ARGS].join(' ') || 'none';
    out(`worker bench over the Manager's HTTP API: ${REPS} repetitions of 1M rows (POST -> completed vs psql export), RSS per size, ${SMALL_JOBS} small jobs; worker node flags: ${flags}`);
    // 1 and 2 once per multipart threshold: the default (parts uploaded during the extraction) and one
    // above the 1M result's size (one PutObject at the end), which suits s3rver (see bench/README.md).
    for (const thresholdMb of THRESHOLDS_MB) {
      const env = { ...workerEnv, OBJECT_STORAGE_MULTIPART_THRESHOLD_MB: String(thresholdMb) };
      out(`OBJECT_STORAGE_MULTIPART_THRESHOLD_MB=${thresholdMb}:`);
      // 2: peak RSS, one fresh Worker per size running exactly one job, so each peak belongs to one size.
      const rss: Record<string, number> = {};
      for (const [label, table] of [['100k', `${BENCH_SCHEMA}.orders_100k`], ['1M', `${BENCH_SCHEMA}.${BENCH_TABLE}`]] as const) {
        const worker = await startWorker(env, WORKER_NODE_ARGS);
        const seconds = await runJob(table);
        worker.stop();
        rss[label] = (await worker.exited).peakRssKb / 1024;
        out(`  ${label}: one job in ${seconds.toFixed(2)} s, worker peak RSS ${rss[label].toFixed(1)} MiB`);
      }
      out(`  RSS 100k ${rss['100k'].toFixed(1)} MiB, 1M ${rss['1M'].toFixed(1)} MiB, growth ${(((rss['1M'] - rss['100k']) / rss['100k']) * 100).toFixed(1)}% (targets <= 150 MiB, <= 10%)`);

      // 1: POST -> completed for 1M rows against the psql export, alternating, in one Worker.
      if (REPS > 0) {
        const worker = await startWorker(env, WORKER_NODE_ARGS);
        const times: number[] = [];
        const exports: number[] = [];
        for (let rep = 0; rep < REPS; rep++) {
          exports.push(await psqlExport(`${BENCH_SCHEMA}.${BENCH_TABLE}`));
          times.push(await runJob(`${BENCH_SCHEMA}.${BENCH_TABLE}`));
          out(`  1M rep ${rep + 1}: psql ${exports[rep].toFixed(2)} s, POST -> completed ${times[rep].toFixed(2)} s, ratio ${(times[rep] / exports[rep]).toFixed(2)}`);
        }
        worker.stop();
        await worker.exited;
        out(`  1M: psql median ${median(exports).toFixed(2)} s, POST -> completed median ${median(times).toFixed(2)} s, ratio ${(median(times) / median(exports)).toFixed(2)} (target <= 1.5)`);
      }
    }

    // 3: small jobs, five submitters (the Worker's concurrency).
    if (SMALL_JOBS > 0) {
      const worker = await startWorker(workerEnv, WORKER_NODE_ARGS);
      const latencies: number[] = [];
      let next = 0;
      await Promise.all(Array.from({ length: 5 }, async () => {
        while (next < SMALL_JOBS) {
          next++;
          latencies.push(await runJob(`${BENCH_SCHEMA}.small_30`));
        }
      }));
      worker.stop();
      await worker.exited;
      out(`${SMALL_JOBS} small jobs, POST -> completed: p50 ${(percentile(latencies, 50) * 1000).toFixed(0)} ms, p99 ${(percentile(latencies, 99) * 1000).toFixed(0)} ms`);
    }
  } finally {
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
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`worker bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
