/**
 * The operator console's Jobs page with many jobs: how long the page takes to show its first page of
 * jobs when the service holds `--jobs` (default 1,000) of them.
 *
 * Seeds the jobs (completed and failed, as a service that has run them would hold them) into the data
 * directory of the built standalone service before it starts, then opens `/console/#/jobs` in
 * Debian's Chromium (playwright-core, headless) `--reps` times, each in a fresh browser context (no
 * cache), and reads from the page's own clock: first contentful paint, and the time until the table
 * shows its rows (20, the page size). The page asks the API for one page of jobs, so the time should
 * not grow with the number of jobs: `--jobs=1000,10000` shows it.
 *
 * Build first: `npm run build && npx tsc -p bench/tsconfig.json`; Chromium must be installed
 * (`.ci/services` installs it).
 *
 *   node bench/dist/console-jobs.bench.js [--jobs=1000] [--reps=5]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobTable } from '@fetcher/contracts';
import { chromium } from 'playwright-core';
import { v7 as uuidv7 } from 'uuid';
import { percentile } from './support/percentile';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SIZES = (args.get('jobs') ?? '1000').split(',').map(Number);
const REPS = Number(args.get('reps') ?? 5);
const ROOT = join(__dirname, '..', '..');
const STANDALONE_MAIN = join(ROOT, 'apps', 'standalone', 'dist', 'main.js');
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGE_ROWS = 20;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function waitFor200(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('the standalone service exited before it was ready');
    if (await fetch(url).then((r) => r.status === 200, () => false)) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready within 180 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `count` finished jobs, one second apart, most completed with a result, every tenth failed. */
async function seedJobs(dataDir: string, count: number): Promise<void> {
  const table = await JobTable.open(join(dataDir, 'jobs'));
  const start = Date.now() - count * 1000;
  for (let i = 0; i < count; i++) {
    const id = uuidv7({ msecs: start + i * 1000 });
    const createdAt = new Date(start + i * 1000);
    const failed = i % 10 === 9;
    await table.add({
      id,
      status: failed ? 'failed' : 'completed',
      mappedFields: { demo: { 'shop.customers': ['id', 'email'] } },
      metadata: failed ? { source: 'demo', run: i, error: 'process failed: datasource query timed out' } : { source: 'demo', run: i },
      requestHash: randomBytes(32).toString('hex'),
      createdAt,
      completedAt: new Date(createdAt.getTime() + 300),
      dispatchedAt: createdAt,
      dispatchAttempts: 1,
      dispatchLockUntil: null,
      datasources: ['demo'],
      ...(failed
        ? {}
        : { resultPath: `external-data/${id}.json`, resultHmac: randomBytes(32).toString('hex'), resultStats: { sizeBytes: 2048, rowCount: 30, rowCounts: { demo: 30 } } }),
    });
  }
  await table.flush();
}

interface Visit {
  readonly fcpMs: number;
  readonly rowsMs: number;
}

async function measure(count: number): Promise<Visit[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-bench-console-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await seedJobs(dataDir, count);
  const service = spawn(process.execPath, [STANDALONE_MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', FETCHER_DATA_DIR: dataDir, SERVER_ADDRESS: `127.0.0.1:${port}`, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  try {
    await waitFor200(`${base}/readyz`, service);
    const listed = (await (await fetch(`${base}/v1/fetcher?limit=1`)).json()) as { items: unknown[] };
    if (listed.items.length !== 1) throw new Error('the service lists no jobs: the seeded files were not read');
    const visits: Visit[] = [];
    for (let rep = 0; rep <= REPS; rep++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${base}/console/#/jobs`);
      // A locator, not waitForFunction: the page's CSP (no 'unsafe-eval') refuses the latter's predicate.
      // The clock is read right after the row appears, so the figure includes one locator poll (a few ms).
      await page.locator('tr[data-job]').nth(PAGE_ROWS - 1).waitFor({ timeout: 60_000 });
      const visit = await page.evaluate<Visit>(`({
        rowsMs: performance.now(),
        fcpMs: (performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime,
      })`);
      await context.close();
      if (rep > 0) visits.push(visit); // the first visit warms the service and the browser
    }
    return visits;
  } finally {
    await browser.close();
    if (service.exitCode === null) {
      service.kill('SIGTERM');
      await once(service, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const load = loadavg()[0].toFixed(1);
  process.stdout.write(`console Jobs page, ${cpus().length} cores, Node ${process.version}, load ${load}; ${REPS} visits per size after one warm-up\n`);
  for (const count of SIZES) {
    const visits = await measure(count);
    const fcp = visits.map((v) => v.fcpMs).sort((a, b) => a - b);
    const rows = visits.map((v) => v.rowsMs).sort((a, b) => a - b);
    process.stdout.write(
      `${count.toLocaleString('en')} jobs: first contentful paint p50 ${percentile(fcp, 50).toFixed(0)} ms (max ${fcp[fcp.length - 1].toFixed(0)}), ` +
        `${PAGE_ROWS} rows shown p50 ${percentile(rows, 50).toFixed(0)} ms (max ${rows[rows.length - 1].toFixed(0)})\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
