/**
 * PostgreSQL extraction against PostgreSQL's own JSON export. The target: the whole extraction path
 * (connector + engine + HMAC + AES-GCM + base64) takes at most 1.5x the time of
 *
 *   psql -h 127.0.0.1 -U postgres -d test -c "\copy (select row_to_json(t) from fetcher_bench.orders_1m t) to '/dev/null'"
 *
 * for the same rows. Each repetition runs that export, then the full path in a child process under
 * `/usr/bin/time -v` (for the kernel's peak RSS): createEngine with the real connector registry, the
 * memory connection store and a ResultSink that HMACs, encrypts and base64-encodes into /dev/null.
 * The table (1,000,000 rows, six columns, ~150 MB as JSON) is created once in schema fetcher_bench.
 *
 *   node bench/dist/postgres-extraction.bench.js [--rows=1000000] [--reps=3]
 *        [--host=127.0.0.1] [--port=5432] [--user=postgres] [--database=test]
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { ConnectionInput, createEngine, createTenantContext } from '@fetcher/engine';
import { MemoryConnectionStore } from '@fetcher/engine/memory';
import { createConnectorRegistry } from '@fetcher/connectors';
import { Client } from 'pg';
import { BENCH_SCHEMA, BENCH_TABLE, ensureBenchTable } from './support/bench-table';
import { CryptoResultSink } from './support/crypto-result-sink';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value = ''] = arg.replace(/^--/, '').split('=');
    return [key, value] as const;
  }),
);
const ROWS = Number(args.get('rows') ?? 1_000_000);
const REPS = Number(args.get('reps') ?? 3);
const HOST = args.get('host') ?? '127.0.0.1';
const PORT = Number(args.get('port') ?? 5432);
const USER = args.get('user') ?? 'postgres';
const DATABASE = args.get('database') ?? 'test';
const TABLE = `${BENCH_SCHEMA}.${BENCH_TABLE}`;
/** The target: the whole extraction path at most 1.5x PostgreSQL's own JSON export. */
const TARGET_RATIO = 1.5;

interface FullPathResult {
  readonly seconds: number;
  readonly rows: number;
  readonly plaintextBytes: number;
  readonly base64Bytes: number;
  readonly hmac: string;
}

interface Measured extends FullPathResult {
  readonly processSeconds: number;
  readonly peakRssKb: number;
}

/** The child: one extraction through the real engine and connector, timed from plan to result. */
async function fullPath(): Promise<FullPathResult> {
  const sink = new CryptoResultSink('/dev/null');
  const registry = createConnectorRegistry({ hostSafety: { allowPrivate: true, allowlist: [`${HOST}/32`, HOST] } });
  const engine = createEngine({
    connectorRegistry: registry,
    connectionStore: new MemoryConnectionStore(),
    resultSink: sink,
    limits: { maxResultBytes: 2 ** 31 },
  });
  const tenant = createTenantContext('bench');
  await engine.createConnection(
    tenant,
    new ConnectionInput({
      configName: 'bench',
      type: 'POSTGRESQL',
      host: HOST,
      port: PORT,
      databaseName: DATABASE,
      userName: USER,
      hostAttributes: { schemaScope: [BENCH_SCHEMA] },
    }),
  );
  const started = process.hrtime.bigint();
  const plan = await engine.planExtraction(tenant, { mappedFields: { bench: { [TABLE]: ['*'] } } });
  plan.mode = 'store';
  const result = await engine.executeExtraction(plan);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const report = sink.reports[0];
  return {
    seconds,
    rows: result.reference?.rowCount ?? 0,
    plaintextBytes: report.plaintextBytes,
    base64Bytes: report.base64Bytes,
    hmac: report.hmacHex,
  };
}

function run(command: string, argv: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
  });
}

async function psqlExport(): Promise<number> {
  const copy = `\\copy (select row_to_json(t) from ${TABLE} t) to '/dev/null'`;
  const result = await run('psql', ['-X', '-q', '-h', HOST, '-p', String(PORT), '-U', USER, '-d', DATABASE, '-c', copy]);
  if (result.code !== 0) throw new Error(`psql failed: ${result.stderr.trim()}`);
  return result.seconds;
}

async function measuredFullPath(): Promise<Measured> {
  const forwarded = [`--rows=${ROWS}`, `--host=${HOST}`, `--port=${PORT}`, `--user=${USER}`, `--database=${DATABASE}`];
  const result = await run('/usr/bin/time', ['-v', process.execPath, __filename, '--child', ...forwarded]);
  if (result.code !== 0) throw new Error(`full path failed: ${result.stderr.trim()}`);
  const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr);
  const measured = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as FullPathResult;
  return { ...measured, processSeconds: result.seconds, peakRssKb: peak ? Number(peak[1]) : NaN };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function parent(): Promise<void> {
  const client = new Client({ host: HOST, port: PORT, user: USER, database: DATABASE });
  await client.connect();
  try {
    await ensureBenchTable(client, ROWS);
  } finally {
    await client.end();
  }
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  out(`table ${TABLE}: ${ROWS} rows; ${REPS} repetitions (psql export, then the full path under /usr/bin/time -v)`);
  out('rep  psql s  full s  (process s)  ratio  rows/s      peak RSS  plaintext   base64');
  const psql: number[] = [];
  const full: Measured[] = [];
  for (let rep = 1; rep <= REPS; rep++) {
    const p = await psqlExport();
    const f = await measuredFullPath();
    if (f.rows !== ROWS) throw new Error(`expected ${ROWS} rows, the full path wrote ${f.rows}`);
    psql.push(p);
    full.push(f);
    out(
      `${String(rep).padStart(3)}  ${p.toFixed(2).padStart(6)}  ${f.seconds.toFixed(2).padStart(6)}  (${f.processSeconds.toFixed(2).padStart(9)})  ` +
        `${(f.seconds / p).toFixed(2).padStart(5)}  ${Math.round(f.rows / f.seconds).toString().padStart(9)}  ` +
        `${(f.peakRssKb / 1024).toFixed(1).padStart(6)} MiB  ${(f.plaintextBytes / 1e6).toFixed(1)} MB  ${(f.base64Bytes / 1e6).toFixed(1)} MB`,
    );
  }
  const psqlMedian = median(psql);
  const fullMedian = median(full.map((f) => f.seconds));
  const processMedian = median(full.map((f) => f.processSeconds));
  out(`median: psql ${psqlMedian.toFixed(2)} s, full path ${fullMedian.toFixed(2)} s (process ${processMedian.toFixed(2)} s)`);
  out(`ratio full/psql: ${(fullMedian / psqlMedian).toFixed(2)} (process: ${(processMedian / psqlMedian).toFixed(2)}); target <= ${TARGET_RATIO.toFixed(2)}`);
  out(`rows/s (median): ${Math.round(ROWS / fullMedian)}; peak RSS (max): ${(Math.max(...full.map((f) => f.peakRssKb)) / 1024).toFixed(1)} MiB`);
  const jsonOut = args.get('json');
  if (jsonOut) {
    const peakRssMiB = Math.max(...full.map((f) => f.peakRssKb)) / 1024;
    writeFileSync(jsonOut, JSON.stringify({ rows: ROWS, psqlSeconds: psql, seconds: full.map((f) => f.seconds), processSeconds: full.map((f) => f.processSeconds), ratio: fullMedian / psqlMedian, peakRssMiB }, null, 2));
  }
  if (fullMedian / psqlMedian > TARGET_RATIO) {
    out(`REGRESSION: the full path is slower than ${TARGET_RATIO}x the psql export`);
    process.exitCode = 1;
  }
}

const main = args.has('child') ? async () => process.stdout.write(`${JSON.stringify(await fullPath())}\n`) : parent;
main().catch((error: unknown) => {
  process.stderr.write(`postgres-extraction bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
