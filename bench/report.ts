/**
 * `npm run bench:report`: runs the benchmarks with their anchors in one go and writes bench/report/:
 * summary.md (each figure, its anchor, the ratio, the target, pass or short, and the machine), the
 * SVG plots, each bench's JSON under data/ and its console output under logs/.
 *
 *   node bench/dist/report.js            # full sizes (200 small jobs; 100k, 300k, 1M, 3M rows; 3 reps)
 *   node bench/dist/report.js --quick    # small sizes, a few minutes on 2 cores (or BENCH_SIZE=quick)
 *   node bench/dist/report.js --render-only   # summary and plots again from the last run's data/
 *   node bench/dist/report.js --soak     # also runs the soak first (30 min; --soak-minutes=N)
 *
 * Without `--soak` the report includes the soak's figures and plots from data/soak.json when an
 * earlier soak left it there (`node bench/dist/soak.bench.js` writes it), and says when it was taken.
 *
 * A bench that fails is reported as not measured; the others still run.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { againstRows, bars, latencyHistogram, phaseBars } from './support/charts';
import { percentile } from './support/percentile';
import type { SmallJobsReport } from './small-jobs.bench';
import { judge, renderSoakPlots, type SoakReport } from './soak.bench';
import type { WorkerExtractionReport } from './worker-extraction.bench';

const ROOT = join(__dirname, '..', '..');
const OUT = join(ROOT, 'bench', 'report');
const QUICK = process.argv.includes('--quick') || process.env.BENCH_SIZE === 'quick';
const RENDER_ONLY = process.argv.includes('--render-only');
const SOAK = process.argv.includes('--soak');
const SOAK_MINUTES = Number(process.argv.find((a) => a.startsWith('--soak-minutes='))?.split('=')[1] ?? 30);

/** Arguments per bench, quick and full. */
const PLAN = {
  'small-jobs': QUICK ? ['--jobs=40', '--per-level=20'] : ['--jobs=200', '--per-level=100'],
  'worker-extraction': QUICK ? ['--sizes=10k,30k,100k,300k', '--reps=1', '--thresholds=8'] : ['--sizes=100k,300k,1M,3M', '--reps=3', '--thresholds=8'],
  'postgres-extraction': QUICK ? ['--reps=1'] : ['--reps=3'],
  'standalone-http': QUICK ? ['--duration=3', '--rounds=1'] : ['--duration=10', '--rounds=3'],
} as const;
type BenchName = keyof typeof PLAN;

interface PostgresExtractionReport { rows: number; psqlSeconds: number[]; seconds: number[]; ratio: number; peakRssMiB: number }
interface StandaloneHttpReport { bareRates: number[]; standaloneRates: number[]; ratio: number; bareCpuUs: number; standaloneCpuUs: number; node: string }

const say = (line: string): boolean => process.stdout.write(`${line}\n`);

/** Runs one bench, its output into logs/<name>.log; resolves to its JSON, or undefined if it failed. */
async function runBench<T>(name: BenchName): Promise<{ data?: T; seconds: number; error?: string }> {
  const json = join(OUT, 'data', `${name}.json`);
  if (RENDER_ONLY) return existsSync(json) ? { data: JSON.parse(readFileSync(json, 'utf8')) as T, seconds: 0 } : { seconds: 0, error: 'no data from an earlier run' };
  const log = createWriteStream(join(OUT, 'logs', `${name}.log`));
  const started = process.hrtime.bigint();
  say(`running ${name} ${PLAN[name].join(' ')} ...`);
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'dist', `${name}.bench.js`), ...PLAN[name], `--json=${json}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const [code] = (await once(child, 'exit')) as [number | null];
  log.end();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0 || !existsSync(json)) {
    say(`  ${name} failed (exit ${String(code)}); see bench/report/logs/${name}.log`);
    return { seconds, error: `exit ${String(code)}` };
  }
  say(`  done in ${seconds.toFixed(0)} s`);
  return { data: JSON.parse(readFileSync(json, 'utf8')) as T, seconds };
}

/** The soak (`--soak`): its output into logs/soak.log, its data into data/soak.json. */
async function runSoak(json: string): Promise<{ seconds: number; error?: string }> {
  const log = createWriteStream(join(OUT, 'logs', 'soak.log'));
  const started = process.hrtime.bigint();
  say(`running soak --minutes=${SOAK_MINUTES} ...`);
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'dist', 'soak.bench.js'), `--minutes=${SOAK_MINUTES}`, `--json=${json}`, `--plots=${OUT}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const [code] = (await once(child, 'exit')) as [number | null];
  log.end();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) say(`  soak failed (exit ${String(code)}); see bench/report/logs/soak.log`);
  return code === 0 ? { seconds } : { seconds, error: `exit ${String(code)}` };
}

interface Figure { figure: string; value: string; anchor: string; ratio: string; target: string; result: 'pass' | 'short' | 'info' | 'not measured' }

const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const verdict = (ok: boolean): 'pass' | 'short' => (ok ? 'pass' : 'short');

function machine(loadBefore: number[], loadAfter: number[]): string[] {
  const cpu = cpus();
  return [
    `- CPU: ${cpu.length} cores (${cpu[0]?.model ?? 'unknown'}), memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node ${process.version} on ${process.platform}/${process.arch}`,
    `- load average (1/5/15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after: ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}`,
    `- sizes: ${QUICK ? 'quick (`--quick`)' : 'full'}`,
  ];
}

async function main(): Promise<void> {
  for (const dir of ['', 'data', 'logs']) mkdirSync(join(OUT, dir), { recursive: true });
  const loadBefore = loadavg();
  const started = new Date();
  const small = await runBench<SmallJobsReport>('small-jobs');
  const worker = await runBench<WorkerExtractionReport>('worker-extraction');
  const engine = await runBench<PostgresExtractionReport>('postgres-extraction');
  const http = existsSync(join(ROOT, 'apps', 'standalone', 'dist'))
    ? await runBench<StandaloneHttpReport>('standalone-http')
    : { seconds: 0, error: 'apps/standalone is not built' };
  const soakJson = join(OUT, 'data', 'soak.json');
  const soakRun = SOAK && !RENDER_ONLY ? await runSoak(soakJson) : undefined;
  const loadAfter = loadavg();

  const figures: Figure[] = [];
  const plots: string[] = [];
  const notMeasured = (figure: string, target: string, why = 'bench failed'): Figure => ({ figure, value: why, anchor: '', ratio: '', target, result: 'not measured' });

  if (small.data) {
    const s = small.data;
    const p50 = percentile(s.latenciesMs, 50);
    const p99 = percentile(s.latenciesMs, 99);
    figures.push({ figure: `small jobs (30 rows, ${s.jobs} jobs, 5 submitters) p50`, value: `${fmt(p50, 0)} ms`, anchor: 'absolute', ratio: '', target: '<= 50 ms', result: verdict(p50 <= 50) });
    figures.push({ figure: 'small jobs p99', value: `${fmt(p99, 0)} ms`, anchor: 'absolute', ratio: '', target: '<= 150 ms', result: verdict(p99 <= 150) });
    for (const t of s.throughput) {
      figures.push({ figure: `small jobs/s, ${t.concurrency} submitter(s), one Worker`, value: `${fmt(t.jobsPerSecond, 1)} jobs/s (p50 ${fmt(t.p50, 0)} ms)`, anchor: '', ratio: '', target: '', result: 'info' });
    }
    writeFileSync(join(OUT, 'small-job-latency.svg'), await latencyHistogram(s.latenciesMs, [
      { label: `p50 ${fmt(p50, 0)} ms`, ms: p50 }, { label: `p99 ${fmt(p99, 0)} ms`, ms: p99 }, { label: 'target p50 50 ms', ms: 50 }, { label: 'target p99 150 ms', ms: 150 },
    ]));
    writeFileSync(join(OUT, 'small-job-phases.svg'), await phaseBars(s.phases));
    writeFileSync(join(OUT, 'small-jobs-throughput.svg'), await bars('Small jobs/s on one Worker', 'concurrent submitters', 'jobs/s', s.throughput.map((t) => ({ x: String(t.concurrency), y: t.jobsPerSecond }))));
    plots.push('small-job-latency.svg', 'small-job-phases.svg', 'small-jobs-throughput.svg');
  } else {
    figures.push(notMeasured('small jobs p50 / p99', '<= 50 / 150 ms'));
  }

  const run = worker.data?.runs[0];
  if (run && run.sizes.length > 0) {
    const maxRss = Math.max(...run.sizes.map((x) => x.peakRssMiB));
    const first = run.sizes[0];
    const last = run.sizes[run.sizes.length - 1];
    const growth = (last.peakRssMiB - first.peakRssMiB) / first.peakRssMiB;
    for (const x of run.sizes) {
      figures.push({ figure: `PostgreSQL job, ${x.rows.toLocaleString('en')} rows, POST -> completed`, value: `${fmt(x.seconds)} s, ${fmt(x.peakRssMiB, 1)} MiB`, anchor: `psql export ${fmt(x.psqlSeconds)} s`, ratio: fmt(x.seconds / x.psqlSeconds), target: '', result: 'info' });
    }
    figures.push({ figure: 'Worker peak RSS, largest size', value: `${fmt(maxRss, 1)} MiB`, anchor: '', ratio: '', target: '<= 150 MiB', result: verdict(maxRss <= 150) });
    figures.push({ figure: `Worker peak RSS growth ${first.rows.toLocaleString('en')} -> ${last.rows.toLocaleString('en')} rows`, value: `${fmt(growth * 100, 1)}%`, anchor: `${fmt(first.peakRssMiB, 1)} MiB`, ratio: fmt(last.peakRssMiB / first.peakRssMiB), target: '<= 1.10 (flat)', result: verdict(growth <= 0.1) });
    if (run.sizes.length >= 2) {
      // Linear time: the time per row at the largest size against the next size down.
      const prev = run.sizes[run.sizes.length - 2];
      const perRow = (last.seconds / last.rows) / (prev.seconds / prev.rows);
      figures.push({ figure: `time per row, ${last.rows.toLocaleString('en')} vs ${prev.rows.toLocaleString('en')} rows`, value: `${fmt((last.seconds / last.rows) * 1e6, 2)} us/row`, anchor: `${fmt((prev.seconds / prev.rows) * 1e6, 2)} us/row`, ratio: fmt(perRow), target: '<= 1.20 (linear)', result: verdict(perRow <= 1.2) });
    }
    if (run.oneMillion) {
      const m = run.oneMillion;
      const sorted = (xs: number[]): number => percentile(xs, 50);
      figures.push({ figure: `1M-row PostgreSQL job, default settings (median of ${m.seconds.length})`, value: `${fmt(sorted(m.seconds))} s`, anchor: `psql export ${fmt(sorted(m.psqlSeconds))} s`, ratio: fmt(m.ratio), target: '<= 1.2', result: verdict(m.ratio <= 1.2) });
    }
    const series = run.sizes.flatMap((x) => [{ rows: x.rows, value: x.seconds, series: 'Fetcher job (POST -> completed)' }, { rows: x.rows, value: x.psqlSeconds, series: 'psql row_to_json export' }]);
    writeFileSync(join(OUT, 'time-vs-rows.svg'), await againstRows('PostgreSQL: time against rows', 'seconds', series));
    writeFileSync(join(OUT, 'rss-vs-rows.svg'), await againstRows('PostgreSQL: Worker peak RSS against rows', 'MiB', run.sizes.map((x) => ({ rows: x.rows, value: x.peakRssMiB, series: 'Worker peak RSS' })), [{ label: 'target 150 MiB', value: 150 }]));
    plots.push('time-vs-rows.svg', 'rss-vs-rows.svg');
  } else {
    figures.push(notMeasured('PostgreSQL jobs: time and peak RSS against rows', 'linear, flat'));
  }

  if (engine.data) {
    const e = engine.data;
    figures.push({ figure: `engine + connector + crypto, ${e.rows.toLocaleString('en')} rows, to /dev/null (median of ${e.seconds.length})`, value: `${fmt(percentile(e.seconds, 50))} s, ${fmt(e.peakRssMiB, 1)} MiB`, anchor: `psql export ${fmt(percentile(e.psqlSeconds, 50))} s`, ratio: fmt(e.ratio), target: '<= 1.5', result: verdict(e.ratio <= 1.5) });
  } else {
    figures.push(notMeasured('engine-level PostgreSQL extraction', '<= 1.5'));
  }

  if (http.data) {
    const h = http.data;
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const onNode24 = Number(h.node.slice(1).split('.')[0]) >= 24;
    figures.push({
      figure: `GET /v1/fetcher/{id}, standalone (Node ${h.node})`, value: `${fmt(mean(h.standaloneRates), 0)} req/s (${h.standaloneCpuUs} us CPU/req)`, anchor: `bare Fastify ${fmt(mean(h.bareRates), 0)} req/s`,
      ratio: `${fmt(h.ratio * 100, 0)}%`, target: '>= 45% on Node 24', result: onNode24 ? verdict(h.ratio >= 0.45) : 'info',
    });
  } else {
    figures.push(notMeasured('GET /v1/fetcher/{id} against bare Fastify', '>= 45% on Node 24', http.error === 'apps/standalone is not built' ? 'apps/standalone is not built' : 'bench failed'));
  }

  let soakNote: string | undefined;
  const soak = existsSync(soakJson) ? JSON.parse(readFileSync(soakJson, 'utf8')) as SoakReport : undefined;
  if (soak) {
    const { verdicts, windowSamples } = judge(soak.samples, soak.warmupMinutes * 60);
    const taken = `${soak.minutes}-min soak written ${statSync(soakJson).mtime.toISOString()}, load ${soak.loadavg.before.map((l) => l.toFixed(1)).join('/')} -> ${soak.loadavg.after.map((l) => l.toFixed(1)).join('/')}`;
    for (const v of verdicts) {
      figures.push({ figure: `soak: ${v.series} after the warm-up`, value: `${fmt(v.last)} (max ${fmt(v.max)})`, anchor: `${fmt(v.first)}, first ${windowSamples} samples`, ratio: `${fmt(v.growth * 100, 1)}%`, target: '<= 5% growth', result: v.result });
    }
    const jobs = soak.jobs.map((j) => `${j.kind} ${j.asExpected}/${j.submitted}`).join(', ');
    figures.push({ figure: 'soak: jobs ended as expected', value: jobs, anchor: '', ratio: '', target: 'all', result: verdict(soak.jobs.every((j) => j.asExpected === j.submitted)) });
    figures.push({ figure: 'soak: after the load, spool files / jobs not ended', value: `${soak.afterDrain.spoolFiles} / ${soak.afterDrain.unended}`, anchor: '', ratio: '', target: '0 / 0', result: verdict(soak.afterDrain.spoolFiles === 0 && soak.afterDrain.unended === 0) });
    plots.push(...await renderSoakPlots(soak, OUT));
    soakNote = `The soak figures come from a ${taken}: after a ${soak.warmupMinutes}-min warm-up, the first ${windowSamples} samples against the last ${windowSamples}, by their mean for memory and their minimum for counts (docs/reliability.md).`;
  }

  const lines = [
    '# Fetcher benchmark report',
    '',
    `Generated ${started.toISOString()} by \`npm run bench:report${QUICK ? ' -- --quick' : ''}\`${RENDER_ONLY ? ' (rendered again from the data of an earlier run: the machine lines describe now, not that run)' : ''}. Targets are ratios against an anchor measured in the same run, or absolute where there is no anchor; no test asserts them.`,
    '',
    '## Machine',
    '',
    ...machine(loadBefore, loadAfter),
    '',
    '## Figures',
    '',
    ...(soakNote ? [soakNote, ''] : []),
    '| Figure | Value | Anchor | Ratio | Target | Result |',
    '|---|---|---|---|---|---|',
    ...figures.map((f) => `| ${f.figure} | ${f.value} | ${f.anchor} | ${f.ratio} | ${f.target} | ${f.result} |`),
    '',
  ];
  if (small.data) {
    lines.push('## Where a small job\'s time goes', '', `From a second run of the same jobs with tracing on (${small.data.tracedJobs} traces; POST -> completed there p50 ${fmt(small.data.tracedLatency.p50, 0)} ms, p99 ${fmt(small.data.tracedLatency.p99, 0)} ms). "other" is what lies between the spans.`, '');
    lines.push('| Phase | p50 ms | p99 ms | mean ms |', '|---|---|---|---|', ...small.data.phases.map((p) => `| ${p.phase} | ${fmt(p.p50)} | ${fmt(p.p99)} | ${fmt(p.mean)} |`), '');
  }
  lines.push('## Plots', '', ...plots.map((p) => `![${p}](${p})`), '');
  lines.push('## Runs', '', '| Bench | Arguments | Wall time | Outcome |', '|---|---|---|---|');
  for (const [name, r] of [['small-jobs', small], ['worker-extraction', worker], ['postgres-extraction', engine], ['standalone-http', http]] as const) {
    lines.push(`| ${name} | \`${PLAN[name].join(' ')}\` | ${fmt(r.seconds, 0)} s | ${r.error ?? 'ok'} (logs/${name}.log) |`);
  }
  if (soakRun) lines.push(`| soak | \`--minutes=${SOAK_MINUTES}\` | ${fmt(soakRun.seconds, 0)} s | ${soakRun.error ?? 'ok'} (logs/soak.log) |`);
  else if (soak) lines.push(`| soak | from data/soak.json (an earlier run) | | not run now |`);
  writeFileSync(join(OUT, 'summary.md'), `${lines.join('\n')}\n`);
  say(`wrote ${join('bench', 'report', 'summary.md')} and ${plots.length} plots`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench report failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
