/**
 * Cancel latency of running 1M-row jobs, through the whole service (support/service-harness.ts: the
 * built Manager and Worker as child processes, RabbitMQ, the MongoDB test server, s3rver, PostgreSQL).
 * Each run creates a job over HTTP on a 1M-row table of its own (a copy of `fetcher_bench.orders_1m`,
 * so no other bench's reads are counted), waits until the Worker is reading it (its PostgreSQL session
 * is active on the table and the spool file holds more than 1 MiB), lets it read a little longer (0,
 * 250, 500 or 750 ms, by turns, so cancels land at different points), then sends
 * `POST /v1/fetcher/{id}/cancel` and measures from just before that request:
 *
 * - **stopped reading**: until no PostgreSQL session of the Worker (`application_name` `fetcher`) is
 *   active on the table any more (sampled continuously over its own connection, about every 1-2 ms);
 * - **canceled**: until the `job.canceled` event arrives (the Worker sends it right after its terminal
 *   write), checked afterwards against `GET /v1/fetcher/{id}` (`canceled`) and the spool (empty);
 * - the cancel request's own answer time (202).
 *
 * The target is p99 <= 2 s for canceled. Build first (bench/README.md).
 *
 *   node bench/dist/cancel-latency.bench.js [--runs=20] [--json=out.json]
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';
import { cancelJob, createJob, readJob } from './support/manager-api';
import { percentile } from './support/percentile';
import { PG, startServiceHarness } from './support/service-harness';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const RUNS = Number(args.get('runs') ?? 20);
const JSON_OUT = args.get('json');
const ROWS = 1_000_000;
const EXTRA_READ_MS = [0, 250, 500, 750];

const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const msSince = (start: bigint, end: bigint = process.hrtime.bigint()): number => Number(end - start) / 1e6;

export interface CancelRun {
  readonly run: number;
  readonly extraReadMs: number;
  readonly answerMs: number;
  readonly stoppedReadingMs: number;
  readonly canceledMs: number;
  /** What the Worker had read when it stopped (its canceled progress). */
  readonly rowsSoFar: number;
}

function spooled(spoolDir: string, jobId: string): number {
  let bytes = -1;
  for (const path of readdirSync(spoolDir, { recursive: true, encoding: 'utf8' })) {
    if (!path.split('/').pop()?.startsWith(jobId)) continue;
    const info = statSync(join(spoolDir, path), { throwIfNoEntry: false });
    if (info?.isFile()) bytes = Math.max(bytes, info.size);
  }
  return bytes;
}

async function main(): Promise<void> {
  const pg = new Client(PG);
  await pg.connect();
  await ensureBenchTable(pg, ROWS);
  const name = `cancel_${randomUUID().slice(0, 8)}`;
  const table = `${BENCH_SCHEMA}.${name}`;
  await pg.query(`CREATE TABLE ${table} AS SELECT * FROM ${BENCH_SCHEMA}.${BENCH_TABLE}`);
  const probe = new Client(PG);
  await probe.connect();
  const reading = async (): Promise<boolean> => {
    const { rows } = await probe.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'fetcher' AND state <> 'idle' AND query LIKE $1 AND pid <> pg_backend_pid()`,
      [`%${name}%`], // the connector quotes identifiers: match the table's own name
    );
    return rows[0].n > 0;
  };

  const harness = await startServiceHarness();
  const runs: CancelRun[] = [];
  try {
    const worker = await harness.startWorker();
    // A Worker that dies (or a job that never ends) stops the bench instead of leaving it waiting.
    let workerGone = false;
    const died = worker.exited.then(() => {
      workerGone = true;
      throw new Error('the Worker exited during the bench');
    });
    died.catch(() => undefined);
    const bounded = <T>(work: Promise<T>, what: string): Promise<T> =>
      Promise.race([work, died, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 120_000).unref())]);
    out(`cancel latency: ${RUNS} runs, ${ROWS.toLocaleString('en')}-row table ${table}, one Worker`);
    for (let run = 0; run < RUNS; run++) {
      const jobId = await createJob(harness.api, { dataRequest: { mappedFields: { bench: { [table]: ['*'] } } }, metadata: { source: 'bench', correlationId: randomUUID() } });
      for (const deadline = Date.now() + 120_000; ; ) {
        if ((await reading()) && spooled(harness.spoolDir, jobId) > 1024 * 1024) break;
        if (workerGone || Date.now() > deadline) throw new Error(`run ${run}: job ${jobId} never seen reading (${(await readJob(harness.api, jobId)).status})`);
        await sleep(5);
      }
      const extraReadMs = EXTRA_READ_MS[run % EXTRA_READ_MS.length];
      await sleep(extraReadMs);

      const started = process.hrtime.bigint();
      const stopped = (async () => {
        while (await reading());
        return msSince(started);
      })();
      const answer = await cancelJob(harness.api, jobId);
      const answerMs = msSince(started);
      if (answer.status !== 202) throw new Error(`run ${run}: cancel answered ${answer.status} (${answer.job.status}): the job was not running`);
      const event = await bounded(harness.terminalEvent(jobId), `the terminal event of job ${jobId}`);
      const canceledMs = msSince(started, event.at);
      const stoppedReadingMs = await bounded(stopped, 'the Worker to stop reading');
      if (event.routingKey !== 'job.canceled') throw new Error(`run ${run}: job ended with ${event.routingKey}: ${event.body}`);
      const job = (await readJob(harness.api, jobId)) as unknown as { status: string; progress?: { rowsSoFar?: number } };
      if (job.status !== 'canceled') throw new Error(`run ${run}: job is ${job.status} after its canceled event`);
      if (spooled(harness.spoolDir, jobId) >= 0) throw new Error(`run ${run}: the spool file is still there`);
      const rowsSoFar = job.progress?.rowsSoFar ?? -1;
      runs.push({ run, extraReadMs, answerMs, stoppedReadingMs, canceledMs, rowsSoFar });
      out(
        `run ${String(run + 1).padStart(2)}: +${String(extraReadMs).padStart(3)} ms read, answer ${answerMs.toFixed(1)} ms, ` +
          `stopped reading ${stoppedReadingMs.toFixed(1)} ms, canceled ${canceledMs.toFixed(1)} ms, rows so far ${rowsSoFar.toLocaleString('en')}`,
      );
    }
    const metrics = await (await fetch(`${worker.baseUrl}/metrics`)).text();
    out(metrics.split('\n').filter((l) => /^fetcher_worker_(jobs_canceled_total|cancel_latency_seconds_(sum|count))/.test(l)).join('\n'));
  } finally {
    await harness.close();
    await pg.query(`DROP TABLE IF EXISTS ${table}`);
    await pg.end();
    await probe.end();
  }

  const row = (name: string, values: number[]) =>
    `| ${name} | ${percentile(values, 50).toFixed(0)} | ${percentile(values, 95).toFixed(0)} | ${percentile(values, 99).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`;
  out('');
  out(`| From POST cancel (${runs.length} runs) | p50 ms | p95 ms | p99 ms | max ms |`);
  out('|---|---|---|---|---|');
  out(row('cancel answered (202)', runs.map((r) => r.answerMs)));
  out(row('Worker stopped reading', runs.map((r) => r.stoppedReadingMs)));
  out(row('job.canceled (terminal write done)', runs.map((r) => r.canceledMs)));
  if (JSON_OUT) writeFileSync(JSON_OUT, `${JSON.stringify({ runs }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
