/**
 * Soak: mixed jobs at a steady rate through the built Manager and one Worker (RabbitMQ, PostgreSQL,
 * the MongoDB test server, s3rver) for `--minutes`, sampling every 10 s each process's RSS, V8 heap
 * used (its `/metrics`), open file descriptors and sockets (/proc/<pid>/fd), and the Worker's spool
 * files. After the warm-up no series may grow by more than 5%: the first samples after the warm-up are
 * compared with the last ones, by their mean for memory, and by their minimum for counts of
 * descriptors, sockets and files (each job in flight holds a few, so a sample's count depends on what
 * was running when it was taken; a leak raises the floor). Writes JSON and SVG plots.
 *
 * The mix, one job every `--interval-ms` in this order: small jobs (30 rows), 100,000-row jobs, jobs
 * that fail in the Worker on a filter naming a missing field, and jobs whose datasource is unreachable
 * (a closed port). Build first (`npm run build && npx tsc -p bench/tsconfig.json`), then:
 *
 *   node bench/dist/soak.bench.js [--minutes=30] [--warmup=5] [--interval-ms=4000] [--json=bench/report/data/soak.json] [--plots=bench/report]
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './support/app-process';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';
import { overTime } from './support/charts';
import { createJob } from './support/manager-api';
import { percentile } from './support/percentile';
import { PG, startServiceHarness } from './support/service-harness';
import { ensureSizedTable } from './support/sized-tables';

const ROOT = join(__dirname, '..', '..');
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const MINUTES = Number(args.get('minutes') ?? 30);
// The warm-up: 5 minutes, at most a third of a short run.
const WARMUP_MIN = Math.min(Number(args.get('warmup') ?? 5), MINUTES / 3);
// One job every 4 s: what one Worker kept up with on the shared 2-core machine (2 s piled up jobs).
const INTERVAL_MS = Number(args.get('interval-ms') ?? 4_000);
const SAMPLE_MS = 10_000;
const JSON_OUT = args.get('json') ?? join(ROOT, 'bench', 'report', 'data', 'soak.json');
const PLOTS = args.get('plots') ?? join(ROOT, 'bench', 'report');
const SMALL_TABLE = `${BENCH_SCHEMA}.small_30`;

const out = (line: string): boolean => process.stdout.write(`${line}\n`);

type Kind = 'small' | 'rows100k' | 'missingFilterField' | 'unreachableSource';
/** One cycle of the mix: mostly small jobs, one in five of 100k rows, one in ten of each failure. */
const MIX: readonly Kind[] = ['small', 'small', 'rows100k', 'small', 'missingFilterField', 'small', 'small', 'rows100k', 'small', 'unreachableSource'];
const EXPECTED: Record<Kind, string> = { small: 'job.completed', rows100k: 'job.completed', missingFilterField: 'job.failed', unreachableSource: 'job.failed' };

export interface SoakSample {
  /** Seconds since the load started. */
  readonly t: number;
  readonly manager: ProcessSample;
  readonly worker: ProcessSample;
  readonly spoolFiles: number;
  /** Jobs submitted and not ended yet. */
  readonly inFlight: number;
}
interface ProcessSample { rssMiB: number; heapUsedMiB: number; fds: number; sockets: number }

export interface SoakVerdict {
  readonly series: string;
  readonly first: number;
  readonly last: number;
  readonly max: number;
  /** (last - first) / first. */
  readonly growth: number;
  readonly result: 'pass' | 'short';
}

export interface SoakReport {
  readonly minutes: number;
  readonly warmupMinutes: number;
  readonly intervalMs: number;
  /** Samples per window compared (the first after the warm-up, the last). */
  readonly windowSamples: number;
  readonly loadavg: { before: number[]; after: number[] };
  readonly samples: SoakSample[];
  readonly verdicts: SoakVerdict[];
  readonly jobs: { kind: Kind; submitted: number; asExpected: number; unexpected: number; refused: number; p50Seconds: number; p99Seconds: number }[];
  /** Once the load stopped and every job had ended: spool files, jobs not ended, each process's descriptors and sockets. */
  readonly afterDrain: { spoolFiles: number; unended: number; manager: { fds: number; sockets: number }; worker: { fds: number; sockets: number } };
  /** The same a minute later, with no job: what idle pools and keep-alive sockets let go of. */
  readonly afterIdle?: { manager: { fds: number; sockets: number }; worker: { fds: number; sockets: number } };
}

function processSample(pid: number): Omit<ProcessSample, 'heapUsedMiB'> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  let fds = 0;
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds += 1;
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets += 1;
    } catch {
      // Closed between the listing and the readlink.
    }
  }
  return { rssMiB: rssKb / 1024, fds, sockets };
}

async function heapUsedMiB(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN) / 2 ** 20;
}

function countFiles(dir: string): number {
  let n = 0;
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  } catch {
    // Not created yet.
  }
  return n;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The series judged, each read from a sample. Counts are compared by their floor (see the top). */
const SERIES: { name: string; unit: string; count: boolean; read: (s: SoakSample) => number }[] = [
  { name: 'Manager RSS', unit: 'MiB', count: false, read: (s) => s.manager.rssMiB },
  { name: 'Manager heap used', unit: 'MiB', count: false, read: (s) => s.manager.heapUsedMiB },
  { name: 'Manager open fds', unit: '', count: true, read: (s) => s.manager.fds },
  { name: 'Manager sockets', unit: '', count: true, read: (s) => s.manager.sockets },
  { name: 'Worker RSS', unit: 'MiB', count: false, read: (s) => s.worker.rssMiB },
  { name: 'Worker heap used', unit: 'MiB', count: false, read: (s) => s.worker.heapUsedMiB },
  { name: 'Worker open fds', unit: '', count: true, read: (s) => s.worker.fds },
  { name: 'Worker sockets', unit: '', count: true, read: (s) => s.worker.sockets },
  { name: 'Worker spool files', unit: '', count: true, read: (s) => s.spoolFiles },
];

export function judge(samples: readonly SoakSample[], warmupSec: number): { verdicts: SoakVerdict[]; windowSamples: number } {
  const after = samples.filter((s) => s.t >= warmupSec);
  const windowSamples = Math.max(3, Math.min(18, Math.floor(after.length / 5)));
  const verdicts = SERIES.map(({ name, count, read }) => {
    const values = after.map(read);
    const summary = count ? (xs: number[]): number => Math.min(...xs) : mean;
    const first = summary(values.slice(0, windowSamples));
    const last = summary(values.slice(-windowSamples));
    const growth = first === 0 ? (last === 0 ? 0 : Infinity) : (last - first) / first;
    const ok = values.length >= 2 * windowSamples && growth <= 0.05;
    return { series: name, first, last, max: Math.max(...values), growth, result: ok ? 'pass' as const : 'short' as const };
  });
  return { verdicts, windowSamples };
}

async function main(): Promise<void> {
  const pg = new Client(PG);
  await pg.connect();
  await ensureBenchTable(pg, 1_000_000);
  await pg.query(`CREATE TABLE IF NOT EXISTS ${SMALL_TABLE} AS SELECT * FROM ${BENCH_SCHEMA}.${BENCH_TABLE} WHERE id <= 30`);
  const bigTable = await ensureSizedTable(pg, 100_000);
  await pg.end();

  // Two internal datasources (not checked by the Manager, so their jobs are accepted and fail in the
  // Worker): the same database, and a port nothing listens on.
  const closedPort = await freePort();
  const internal = (name: string, port: number): Record<string, string> => ({
    [`DATASOURCE_${name.toUpperCase()}_CONFIG_NAME`]: name, [`DATASOURCE_${name.toUpperCase()}_TYPE`]: 'POSTGRESQL', [`DATASOURCE_${name.toUpperCase()}_HOST`]: PG.host,
    [`DATASOURCE_${name.toUpperCase()}_PORT`]: String(port), [`DATASOURCE_${name.toUpperCase()}_DATABASE`]: PG.database, [`DATASOURCE_${name.toUpperCase()}_USER`]: PG.user,
  });
  const harness = await startServiceHarness({ env: { ...internal('soakpg', PG.port), ...internal('soakdown', closedPort) } });
  const loadBefore = loadavg();
  const samples: SoakSample[] = [];
  const ended: { kind: Kind; ok: boolean; refused: boolean; seconds: number }[] = [];
  const pending = new Set<Promise<void>>();
  let inFlight = 0;
  try {
    const worker = await harness.startWorker();
    const bodyOf = (kind: Kind): Record<string, unknown> => {
      const metadata = { source: 'bench', correlationId: randomUUID() };
      switch (kind) {
        case 'small': return { dataRequest: { mappedFields: { bench: { [SMALL_TABLE]: ['*'] } } }, metadata };
        case 'rows100k': return { dataRequest: { mappedFields: { bench: { [bigTable]: ['*'] } } }, metadata };
        case 'missingFilterField': return { dataRequest: { mappedFields: { soakpg: { [SMALL_TABLE]: ['*'] } }, filters: { soakpg: { [SMALL_TABLE]: { no_such_field: { eq: [1] } } } } }, metadata };
        case 'unreachableSource': return { dataRequest: { mappedFields: { soakdown: { [SMALL_TABLE]: ['*'] } } }, metadata };
      }
    };
    const runOne = async (kind: Kind): Promise<void> => {
      const started = process.hrtime.bigint();
      inFlight += 1;
      try {
        const jobId = await createJob(harness.api, bodyOf(kind));
        const end = await harness.terminalEvent(jobId);
        ended.push({ kind, ok: end.routingKey === EXPECTED[kind], refused: false, seconds: Number(end.at - started) / 1e9 });
        if (end.routingKey !== EXPECTED[kind]) out(`  unexpected: ${kind} job ${jobId} ended ${end.routingKey}: ${end.body.slice(0, 300)}`);
      } catch (error) {
        ended.push({ kind, ok: false, refused: true, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
        out(`  ${kind} job not accepted: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
      } finally {
        inFlight -= 1;
      }
    };
    const sample = async (t: number): Promise<SoakSample> => {
      const [managerHeap, workerHeap] = await Promise.all([heapUsedMiB(harness.api), heapUsedMiB(worker.baseUrl)]);
      return {
        t,
        manager: { ...processSample(harness.managerPid), heapUsedMiB: managerHeap },
        worker: { ...processSample(worker.pid), heapUsedMiB: workerHeap },
        spoolFiles: countFiles(harness.spoolDir),
        inFlight,
      };
    };

    out(`soak: ${MINUTES} min, one job every ${INTERVAL_MS} ms (${MIX.join(', ')}), warm-up ${WARMUP_MIN} min, samples every ${SAMPLE_MS / 1000} s; load ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
    const start = Date.now();
    const endAt = start + MINUTES * 60_000;
    let n = 0;
    // Submissions on a fixed schedule, whatever the jobs take.
    const submitter = (async () => {
      for (let next = start; next < endAt; next += INTERVAL_MS) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
        const run = runOne(MIX[n++ % MIX.length]);
        pending.add(run);
        void run.finally(() => pending.delete(run));
      }
    })();
    for (let next = start; next <= endAt; next += SAMPLE_MS) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      const s = await sample((Date.now() - start) / 1000);
      samples.push(s);
      out(`  ${(s.t / 60).toFixed(1)} min: Manager ${s.manager.rssMiB.toFixed(1)} MiB RSS, heap ${s.manager.heapUsedMiB.toFixed(1)}, ${s.manager.fds} fds (${s.manager.sockets} sockets); `
        + `Worker ${s.worker.rssMiB.toFixed(1)} MiB RSS, heap ${s.worker.heapUsedMiB.toFixed(1)}, ${s.worker.fds} fds (${s.worker.sockets} sockets); spool ${s.spoolFiles}; in flight ${s.inFlight}; ended ${ended.length}`);
    }
    await submitter;
    // Every job must end; a job still running 5 minutes after the load stopped counts as unended.
    const drained = Promise.all([...pending]);
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 300_000))]);
    const idle = (pid: number): { fds: number; sockets: number } => {
      const { fds, sockets } = processSample(pid);
      return { fds, sockets };
    };
    const afterDrain = { spoolFiles: countFiles(harness.spoolDir), unended: inFlight, manager: idle(harness.managerPid), worker: idle(worker.pid) };
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    const afterIdle = { manager: idle(harness.managerPid), worker: idle(worker.pid) };
    const loadAfter = loadavg();

    const { verdicts, windowSamples } = judge(samples, WARMUP_MIN * 60);
    const kinds = [...new Set(MIX)];
    const jobs = kinds.map((kind) => {
      const mine = ended.filter((e) => e.kind === kind);
      const seconds = mine.filter((e) => !e.refused).map((e) => e.seconds);
      return {
        kind, submitted: mine.length, asExpected: mine.filter((e) => e.ok).length, unexpected: mine.filter((e) => !e.ok && !e.refused).length,
        refused: mine.filter((e) => e.refused).length, p50Seconds: seconds.length ? percentile(seconds, 50) : NaN, p99Seconds: seconds.length ? percentile(seconds, 99) : NaN,
      };
    });
    const report: SoakReport = {
      minutes: MINUTES, warmupMinutes: WARMUP_MIN, intervalMs: INTERVAL_MS, windowSamples, loadavg: { before: loadBefore, after: loadAfter }, samples, verdicts, jobs, afterDrain, afterIdle,
    };
    mkdirSync(dirname(JSON_OUT), { recursive: true });
    writeFileSync(JSON_OUT, `${JSON.stringify(report, null, 1)}\n`);
    const plots = await renderSoakPlots(report, PLOTS);

    out('');
    out(`jobs (load average before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}):`);
    for (const j of jobs) out(`  ${j.kind}: ${j.submitted} submitted, ${j.asExpected} ended as expected, ${j.unexpected} otherwise, ${j.refused} not accepted; POST -> end p50 ${j.p50Seconds.toFixed(2)} s, p99 ${j.p99Seconds.toFixed(2)} s`);
    out(`after the load: ${afterDrain.spoolFiles} spool files, ${afterDrain.unended} jobs not ended; Manager ${afterDrain.manager.fds} fds (${afterDrain.manager.sockets} sockets), Worker ${afterDrain.worker.fds} fds (${afterDrain.worker.sockets} sockets)`);
    out(`a minute later: Manager ${afterIdle.manager.fds} fds (${afterIdle.manager.sockets} sockets), Worker ${afterIdle.worker.fds} fds (${afterIdle.worker.sockets} sockets)`);
    out(`growth after the ${WARMUP_MIN}-min warm-up (the first ${windowSamples} samples against the last ${windowSamples}: mean for memory, minimum for counts; limit 5%):`);
    for (const v of verdicts) out(`  ${v.series}: ${v.first.toFixed(2)} -> ${v.last.toFixed(2)} (max ${v.max.toFixed(2)}), ${(v.growth * 100).toFixed(1)}%: ${v.result}`);
    out(`wrote ${JSON_OUT} and ${plots.map((p) => join(PLOTS, p)).join(', ')}`);
    worker.stop();
    await worker.exited;
  } finally {
    await harness.close();
  }
}

/** The soak's plots into `dir`; returns their file names (also used by report.ts). */
export async function renderSoakPlots(report: SoakReport, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const minute = (s: SoakSample): number => s.t / 60;
  const both = (read: (p: ProcessSample) => number) => report.samples.flatMap((s) => [
    { minute: minute(s), value: read(s.manager), series: 'Manager' }, { minute: minute(s), value: read(s.worker), series: 'Worker' },
  ]);
  const plots: [string, string, string, { minute: number; value: number; series: string }[]][] = [
    ['soak-rss.svg', 'Soak: resident set size', 'MiB', both((p) => p.rssMiB)],
    ['soak-heap.svg', 'Soak: V8 heap used', 'MiB', both((p) => p.heapUsedMiB)],
    ['soak-fds.svg', 'Soak: open file descriptors', 'descriptors', both((p) => p.fds)],
    ['soak-sockets.svg', 'Soak: open sockets', 'sockets', both((p) => p.sockets)],
    ['soak-spool.svg', 'Soak: Worker spool files and jobs in flight', 'count', report.samples.flatMap((s) => [
      { minute: minute(s), value: s.spoolFiles, series: 'spool files' }, { minute: minute(s), value: s.inFlight, series: 'jobs in flight' },
    ])],
  ];
  for (const [file, title, unit, points] of plots) writeFileSync(join(dir, file), await overTime(title, unit, points, report.warmupMinutes));
  return plots.map(([file]) => file);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
