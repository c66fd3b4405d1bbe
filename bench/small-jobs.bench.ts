/**
 * Small jobs through the whole service (Manager, Worker, RabbitMQ, the MongoDB test server, s3rver):
 *
 * 1. latency from `POST /v1/fetcher` to `completed` for N jobs of a 30-row PostgreSQL table, five
 *    submitters (targets: p50 <= 50 ms, p99 <= 150 ms);
 * 2. the same jobs again with tracing on (spans sent to an OTLP receiver in this process), cut into
 *    phases per job (support/job-phases.ts): p50/p99 of each phase;
 * 3. jobs/s with 1, 5 and 20 submitters against one Worker.
 *
 * Tracing costs a little, so 1 and 3 run without it and 2 is its own run. Build first (see
 * bench/README.md), then:
 *
 *   node bench/dist/small-jobs.bench.js [--jobs=200] [--concurrency=1,5,20] [--per-level=100] [--reuse=on,off] [--traced-reuse=on,off] [--json=out.json]
 *
 * `--reuse` lists Worker runs of 1 and 3 in turn: `on` keeps datasource connectors between jobs (the
 * default, CONNECTION_REUSE_IDLE_MS=30000), `off` dials per job (0); e.g. `on,off,on,off` alternates.
 * `--traced-reuse` does the same for 2 (default `on`). The JSON report's single figures are the first run's.
 */
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';
import { jobPhases, PHASES, type Phase } from './support/job-phases';
import { percentile } from './support/percentile';
import { PG, startServiceHarness, type ServiceHarness } from './support/service-harness';
import { SpanCollector } from './support/span-collector';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const JOBS = Number(args.get('jobs') ?? 200);
const LEVELS = (args.get('concurrency') ?? '1,5,20').split(',').filter(Boolean).map(Number);
const PER_LEVEL = Number(args.get('per-level') ?? 100);
const JSON_OUT = args.get('json');
const REUSE = (args.get('reuse') ?? 'on').split(',').filter(Boolean);
const TRACED_REUSE = (args.get('traced-reuse') ?? 'on').split(',').filter(Boolean);
if ([...REUSE, ...TRACED_REUSE].some((mode) => mode !== 'on' && mode !== 'off')) throw new Error('--reuse and --traced-reuse take a list of on and off');
const SMALL_TABLE = `${BENCH_SCHEMA}.small_30`;

const out = (line: string): boolean => process.stdout.write(`${line}\n`);

export interface SmallJobsReport {
  readonly jobs: number;
  /** Milliseconds, POST -> completed, in completion order. */
  readonly latenciesMs: number[];
  readonly phases: { phase: Phase; p50: number; p99: number; mean: number }[];
  readonly tracedJobs: number;
  readonly tracedLatency: { p50: number; p99: number };
  readonly throughput: { concurrency: number; jobs: number; seconds: number; jobsPerSecond: number; p50: number; p99: number }[];
  /** Every Worker run of 1 and 3, in order; the fields above are the first run's. */
  readonly runs: { reuse: string; latenciesMs: number[]; throughput: SmallJobsReport['throughput'] }[];
}

/** Runs `count` jobs with `submitters` in parallel; milliseconds per job. */
async function submit(harness: ServiceHarness, count: number, submitters: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: submitters }, async () => {
    while (next < count) {
      next++;
      latencies.push((await harness.runJob(SMALL_TABLE)).seconds * 1000);
    }
  }));
  return latencies;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const pg = new Client(PG);
  await pg.connect();
  await ensureBenchTable(pg, 1_000_000);
  await pg.query(`CREATE TABLE IF NOT EXISTS ${SMALL_TABLE} AS SELECT * FROM ${BENCH_SCHEMA}.${BENCH_TABLE} WHERE id <= 30`);
  await pg.end();

  // 1 and 3: no tracing, one Worker per --reuse entry.
  const plain = await startServiceHarness();
  const runs: SmallJobsReport['runs'] = [];
  try {
    for (const reuse of REUSE) {
      const worker = await plain.startWorker(reuse === 'off' ? { CONNECTION_REUSE_IDLE_MS: '0' } : {});
      await submit(plain, 10, 5); // warm-up: first dials, JIT
      const latencies = await submit(plain, JOBS, 5);
      const throughput: SmallJobsReport['throughput'] = [];
      out(`reuse ${reuse}: ${JOBS} small jobs, 5 submitters, POST -> completed: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))} (targets 50 / 150 ms)`);
      for (const level of LEVELS) {
        const started = process.hrtime.bigint();
        const each = await submit(plain, PER_LEVEL, level);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        throughput.push({ concurrency: level, jobs: PER_LEVEL, seconds, jobsPerSecond: PER_LEVEL / seconds, p50: percentile(each, 50), p99: percentile(each, 99) });
        out(`  ${level} submitters: ${PER_LEVEL} jobs in ${seconds.toFixed(2)} s = ${(PER_LEVEL / seconds).toFixed(1)} jobs/s (p50 ${ms(percentile(each, 50))}, p99 ${ms(percentile(each, 99))})`);
      }
      worker.stop();
      await worker.exited; // the next run's Worker alone takes the jobs
      runs.push({ reuse, latenciesMs: latencies, throughput });
    }
  } finally {
    await plain.close();
  }
  const { latenciesMs, throughput } = runs[0];

  // 2: the same jobs traced, cut into phases; once per --traced-reuse entry.
  const tracedRuns: { reuse: string; phases: SmallJobsReport['phases']; traces: number; latencies: number[] }[] = [];
  for (const reuse of TRACED_REUSE) {
    const collector = new SpanCollector();
    const endpoint = await collector.start();
    const traced = await startServiceHarness({
      env: { ENABLE_TELEMETRY: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '500', OTEL_BSP_MAX_QUEUE_SIZE: '65536' },
    });
    let latencies: number[];
    try {
      await traced.startWorker(reuse === 'off' ? { CONNECTION_REUSE_IDLE_MS: '0' } : {});
      await submit(traced, 10, 5);
      latencies = await submit(traced, JOBS, 5);
    } finally {
      await traced.close(); // the apps flush their last spans on shutdown
      await collector.close();
    }
    const perJob = [...collector.traces()].map((spans) => jobPhases(spans, traced.names)).filter((p) => p !== undefined).slice(-JOBS);
    const phases = PHASES.map((phase) => {
      const values = perJob.map((p) => p[phase]);
      return { phase, p50: percentile(values, 50), p99: percentile(values, 99), mean: values.reduce((a, b) => a + b, 0) / values.length };
    });
    out(`traced run, reuse ${reuse}: ${perJob.length} complete job traces (${collector.received} spans); POST -> completed p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
    out('| Phase | p50 ms | p99 ms | mean ms |');
    out('|---|---|---|---|');
    for (const p of phases) out(`| ${p.phase} | ${p.p50.toFixed(2)} | ${p.p99.toFixed(2)} | ${p.mean.toFixed(2)} |`);
    tracedRuns.push({ reuse, phases, traces: perJob.length, latencies });
  }
  const { phases, traces: tracedJobs, latencies: tracedLatencies } = tracedRuns[0];

  const report: SmallJobsReport = {
    jobs: JOBS, latenciesMs, phases, tracedJobs,
    tracedLatency: { p50: percentile(tracedLatencies, 50), p99: percentile(tracedLatencies, 99) }, throughput, runs,
  };
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(report, null, 2));
}

main().catch((error: unknown) => {
  process.stderr.write(`small-jobs bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
