/**
 * The Worker as a whole, driven through the Manager's HTTP API (support/service-harness.ts): a
 * connection and a job created over HTTP, an encrypted result in object storage and `completed` in
 * the job out. Measures, once per `OBJECT_STORAGE_MULTIPART_THRESHOLD_MB` given:
 *
 * 1. how cost grows: for each size (default 100k, 300k, 1M, 3M rows), one job in a fresh Worker:
 *    POST -> `completed` and the Worker's peak RSS (`/usr/bin/time -v`), next to PostgreSQL's own
 *    export of the same table,
 *      psql -c "\copy (select row_to_json(t) from <table> t) to '/dev/null'"
 *    (targets: time linear in rows, peak RSS <= 150 MiB and flat: at most 10% above the smallest size);
 * 2. `fetcher_bench.orders_1m` from POST to `completed` against the psql export, alternating, `--reps`
 *    times in one Worker (target: ratio <= 1.2 with the default settings).
 *
 * 8 MiB is the Worker's default threshold (parts go up while the extraction runs); 1024 makes the
 * 1M result one PutObject at the end, which suits s3rver (its CompleteMultipartUpload copies and
 * hashes the whole object again). Small jobs are small-jobs.bench.ts. Build first (bench/README.md).
 *
 * `--s3=s3rver,discard` runs everything once per object store: s3rver, and an endpoint that accepts
 * and discards every upload (support/discarding-s3.ts), which shows what s3rver itself costs a job.
 *
 *   node bench/dist/worker-extraction.bench.js [--sizes=100k,300k,1M,3M] [--reps=3] [--thresholds=8,1024] [--s3=s3rver,discard] [--json=out.json]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { workerStartFlags } from './support/app-process';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';
import { startDiscardingS3 } from './support/discarding-s3';
import { median } from './support/percentile';
import { PG, startServiceHarness } from './support/service-harness';
import { ensureSizedTable, parseRows } from './support/sized-tables';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SIZES = (args.get('sizes') ?? '100k,300k,1M,3M').split(',').filter(Boolean).map(parseRows);
const REPS = Number(args.get('reps') ?? 3);
/** Multipart thresholds (MiB) to run with; 8 is the Worker's default. */
const THRESHOLDS_MB = (args.get('thresholds') ?? '8,1024').split(',').map(Number);
/** Object stores to run against: s3rver (the harness's), and/or an endpoint that discards uploads. */
const STORES = (args.get('s3') ?? 's3rver').split(',').filter(Boolean) as ('s3rver' | 'discard')[];
const JSON_OUT = args.get('json');
// For profiling a run, e.g. WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
const WORKER_NODE_ARGS = (process.env.WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);

const out = (line: string): boolean => process.stdout.write(`${line}\n`);

export interface WorkerExtractionReport {
  readonly runs: {
    /** The object store: s3rver, or the endpoint that discards uploads. Absent in reports from before it was an option. */
    readonly store?: 's3rver' | 'discard';
    readonly thresholdMb: number;
    readonly sizes: { rows: number; seconds: number; psqlSeconds: number; peakRssMiB: number }[];
    oneMillion?: { seconds: number[]; psqlSeconds: number[]; ratio: number };
  }[];
}

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
  const tables = new Map<number, string>();
  for (const rows of SIZES) tables.set(rows, await ensureSizedTable(pg, rows));
  await pg.end();

  const harness = await startServiceHarness({ workerNodeArgs: WORKER_NODE_ARGS });
  const report: WorkerExtractionReport = { runs: [] };
  try {
    const flags = [...workerStartFlags(), ...WORKER_NODE_ARGS].join(' ') || 'none';
    out(`worker bench over the Manager's HTTP API: sizes ${SIZES.join(', ')} (one job each, fresh Worker), ${REPS} repetitions of 1M rows vs psql; worker node flags: ${flags}`);
    for (const store of STORES) {
      const discarding = store === 'discard' ? await startDiscardingS3() : undefined;
      try {
        for (const thresholdMb of THRESHOLDS_MB) {
          // A 2 GiB result limit: the default (256 MiB of JSON) refuses the 3M-row result (about 480 MB).
          const env: Record<string, string> = {
            OBJECT_STORAGE_MULTIPART_THRESHOLD_MB: String(thresholdMb),
            ENGINE_MAX_RESULT_BYTES: String(2 ** 31),
            ...(discarding ? { OBJECT_STORAGE_ENDPOINT: discarding.endpoint } : {}),
          };
          out(`object store ${store}, OBJECT_STORAGE_MULTIPART_THRESHOLD_MB=${thresholdMb}:`);
          const run: WorkerExtractionReport['runs'][number] = { store, thresholdMb, sizes: [] };
          report.runs.push(run);
          // 1: one fresh Worker per size running exactly one job, so each peak belongs to one size.
          for (const rows of SIZES) {
            const table = tables.get(rows) as string;
            const psqlSeconds = await psqlExport(table);
            const worker = await harness.startWorker(env);
            const { seconds } = await harness.runJob(table);
            worker.stop();
            const peakRssMiB = (await worker.exited).peakRssKb / 1024;
            run.sizes.push({ rows, seconds, psqlSeconds, peakRssMiB });
            out(`  ${rows} rows: POST -> completed ${seconds.toFixed(2)} s (${Math.round(rows / seconds)} rows/s), psql ${psqlSeconds.toFixed(2)} s, ratio ${(seconds / psqlSeconds).toFixed(2)}, worker peak RSS ${peakRssMiB.toFixed(1)} MiB`);
          }
          const smallest = run.sizes[0];
          const largest = run.sizes.at(-1);
          if (smallest && largest && largest !== smallest) {
            out(`  RSS ${smallest.peakRssMiB.toFixed(1)} -> ${largest.peakRssMiB.toFixed(1)} MiB (${(((largest.peakRssMiB - smallest.peakRssMiB) / smallest.peakRssMiB) * 100).toFixed(1)}%; targets <= 150 MiB, <= 10%)`);
          }

          // 2: POST -> completed for 1M rows against the psql export, alternating, in one Worker.
          if (REPS > 0) {
            const worker = await harness.startWorker(env);
            const seconds: number[] = [];
            const psqlSeconds: number[] = [];
            for (let rep = 0; rep < REPS; rep++) {
              psqlSeconds.push(await psqlExport(`${BENCH_SCHEMA}.${BENCH_TABLE}`));
              seconds.push((await harness.runJob(`${BENCH_SCHEMA}.${BENCH_TABLE}`)).seconds);
              out(`  1M rep ${rep + 1}: psql ${psqlSeconds[rep].toFixed(2)} s, POST -> completed ${seconds[rep].toFixed(2)} s, ratio ${(seconds[rep] / psqlSeconds[rep]).toFixed(2)}`);
            }
            worker.stop();
            await worker.exited;
            const ratio = median(seconds) / median(psqlSeconds);
            run.oneMillion = { seconds, psqlSeconds, ratio };
            out(`  1M: psql median ${median(psqlSeconds).toFixed(2)} s, POST -> completed median ${median(seconds).toFixed(2)} s, ratio ${ratio.toFixed(2)} (target <= 1.2)`);
          }
        }
      } finally {
        await discarding?.close();
      }
    }
  } finally {
    await harness.close();
  }
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(report, null, 2));
}

main().catch((error: unknown) => {
  process.stderr.write(`worker bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
