/**
 * MariaDB extraction: the row path against the server-built JSON path, both against the server's own
 * JSON export
 *
 *   mariadb --batch --raw -h 127.0.0.1 -u root -D fetcher_bench -e "select json_object(...) from orders_1m" > /dev/null
 *
 * for the same rows. Each repetition runs that export, then the full path twice in child processes
 * under `/usr/bin/time -v` (row path, then server-built path): createEngine with the real connector
 * registry (its MYSQL factory told which path to take), the memory connection store and a ResultSink
 * that HMACs, encrypts and base64-encodes into /dev/null. Both paths must write the same document
 * (same SHA-256). The
 * table (six columns as in the PostgreSQL bench) is created once in database fetcher_bench.
 *
 *   node bench/dist/mysql-extraction.bench.js [--rows=1000000] [--reps=3]
 *        [--host=127.0.0.1] [--port=3306] [--user=root] [--client=mariadb]
 */
import { spawn } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { ConnectionInput, createEngine, createTenantContext, type ResultSink } from '@fetcher/engine';
import { MemoryConnectionStore } from '@fetcher/engine/memory';
import { MysqlConnectorFactory, createConnectorRegistry, type ConnectorOptions } from '@fetcher/connectors';
import { createConnection } from 'mysql2/promise';
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
const PORT = Number(args.get('port') ?? 3306);
const USER = args.get('user') ?? 'root';
const CLIENT = args.get('client') ?? 'mariadb';
const DATABASE = 'fetcher_bench';
const TABLE = 'orders_1m';
/** The targets: at most 1.2x the server's own export, and at least 3x the row path's rows/s. */
const TARGET_RATIO = 1.2;
const TARGET_SPEEDUP = 3;

const EXPORT_SQL =
  `select json_object('active', active, 'amount', amount, 'created_at', created_at, 'customer', customer, 'id', id, ` +
  `'quantity', quantity) from ${TABLE}`;

interface FullPathResult {
  readonly seconds: number;
  readonly rows: number;
  readonly plaintextBytes: number;
  /** SHA-256 of the plaintext document (the sink's HMAC key is random per process). */
  readonly sha256: string;
}

interface Measured extends FullPathResult {
  readonly processSeconds: number;
  readonly peakRssKb: number;
}

async function ensureBenchTable(): Promise<void> {
  const admin = await createConnection({ host: HOST, port: PORT, user: USER, charset: 'utf8mb4' });
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${DATABASE}`);
    await admin.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      id BIGINT PRIMARY KEY, amount DECIMAL(12,2) NOT NULL, customer VARCHAR(64) NOT NULL, created_at DATETIME(6) NOT NULL,
      active TINYINT(1) NOT NULL, quantity INT NULL)`);
    const [counted] = await admin.query(`SELECT COUNT(*) AS n FROM ${TABLE}`);
    if (Number((counted as { n: number }[])[0].n) === ROWS) return;
    await admin.query(`TRUNCATE ${TABLE}`);
    await admin.query(
      `INSERT INTO ${TABLE}
       SELECT seq, ((seq * 7919) % 10000000) / 100.0, CONCAT('customer ', MD5(seq)),
              TIMESTAMP '2020-01-01 00:00:00' + INTERVAL seq * 1234567 MICROSECOND, seq % 3 = 0,
              IF(seq % 50 = 0, NULL, seq % 1000)
       FROM seq_1_to_${ROWS}`,
    );
  } finally {
    await admin.end();
  }
}

/** The crypto sink, with a SHA-256 of the plaintext on the side, so that two processes' documents compare. */
function digesting(sink: ResultSink, hash: Hash): ResultSink {
  return {
    openResultStream: async (tenant, options) => {
      const writer = await sink.openResultStream(tenant, options);
      return {
        write: (chunk) => {
          hash.update(chunk);
          return writer.write(chunk);
        },
        close: () => writer.close(),
        abort: (reason) => writer.abort(reason),
      };
    },
  };
}

/** The child: one extraction through the real engine and connector, timed from plan to result. */
async function fullPath(serverJsonPath: boolean): Promise<FullPathResult> {
  const sink = new CryptoResultSink('/dev/null');
  const hash = createHash('sha256');
  const options: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: [`${HOST}/32`, HOST] } };
  const registry = createConnectorRegistry(options);
  const mysql = new MysqlConnectorFactory(options, { serverJsonPath });
  const engine = createEngine({
    connectorRegistry: { connector: (type) => (type === 'MYSQL' ? mysql : registry.connector(type)) },
    connectionStore: new MemoryConnectionStore(),
    resultSink: digesting(sink, hash),
    limits: { maxResultBytes: 2 ** 31 },
  });
  const tenant = createTenantContext('bench');
  await engine.createConnection(
    tenant,
    new ConnectionInput({ configName: 'bench', type: 'MYSQL', host: HOST, port: PORT, databaseName: DATABASE, userName: USER }),
  );
  const started = process.hrtime.bigint();
  const plan = await engine.planExtraction(tenant, { mappedFields: { bench: { [TABLE]: ['*'] } } });
  plan.mode = 'store';
  const result = await engine.executeExtraction(plan);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const report = sink.reports[0];
  return { seconds, rows: result.reference?.rowCount ?? 0, plaintextBytes: report.plaintextBytes, sha256: hash.digest('hex') };
}

function run(command: string, argv: readonly string[], stdoutTo?: number): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, argv, { stdio: ['ignore', stdoutTo ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
  });
}

async function serverExport(): Promise<number> {
  const devNull = openSync('/dev/null', 'w');
  try {
    const result = await run(CLIENT, ['--batch', '--raw', '-h', HOST, '-P', String(PORT), '-u', USER, '-D', DATABASE, '-e', EXPORT_SQL], devNull);
    if (result.code !== 0) throw new Error(`${CLIENT} failed: ${result.stderr.trim()}`);
    return result.seconds;
  } finally {
    closeSync(devNull);
  }
}

async function measuredFullPath(serverJsonPath: boolean): Promise<Measured> {
  const forwarded = [`--rows=${ROWS}`, `--host=${HOST}`, `--port=${PORT}`, `--user=${USER}`, `--server-json=${serverJsonPath}`];
  const result = await run('/usr/bin/time', ['-v', process.execPath, __filename, '--child', ...forwarded]);
  if (result.code !== 0) throw new Error(`full path failed: ${result.stderr.trim()}`);
  const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr);
  const measured = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as FullPathResult;
  if (measured.rows !== ROWS) throw new Error(`expected ${ROWS} rows, the full path wrote ${measured.rows}`);
  return { ...measured, processSeconds: result.seconds, peakRssKb: peak ? Number(peak[1]) : NaN };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function parent(): Promise<void> {
  await ensureBenchTable();
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  const line = (m: Measured, anchor: number): string =>
    `${m.seconds.toFixed(2).padStart(6)} s (process ${m.processSeconds.toFixed(2)} s)  ratio ${(m.seconds / anchor).toFixed(2)}  ` +
    `${Math.round(m.rows / m.seconds).toString().padStart(8)} rows/s  ${(m.peakRssKb / 1024).toFixed(1)} MiB`;
  out(`table ${DATABASE}.${TABLE}: ${ROWS} rows; ${REPS} repetitions (${CLIENT} export, row path, server-built path)`);
  const anchors: number[] = [];
  const rowPath: Measured[] = [];
  const serverPath: Measured[] = [];
  for (let rep = 1; rep <= REPS; rep++) {
    const anchor = await serverExport();
    const rows = await measuredFullPath(false);
    const server = await measuredFullPath(true);
    if (rows.sha256 !== server.sha256) throw new Error('the two paths wrote different documents');
    anchors.push(anchor);
    rowPath.push(rows);
    serverPath.push(server);
    out(`rep ${rep}: export ${anchor.toFixed(2)} s (${Math.round(ROWS / anchor)} rows/s)`);
    out(`  row path     ${line(rows, anchor)}`);
    out(`  server JSON  ${line(server, anchor)}`);
  }
  const anchor = median(anchors);
  const rowsMedian = median(rowPath.map((m) => m.seconds));
  const serverMedian = median(serverPath.map((m) => m.seconds));
  const ratio = serverMedian / anchor;
  const speedup = rowsMedian / serverMedian;
  out(`document ${(serverPath[0].plaintextBytes / 1e6).toFixed(1)} MB, identical SHA-256 on both paths`);
  out(`median: export ${anchor.toFixed(2)} s, row path ${rowsMedian.toFixed(2)} s (${Math.round(ROWS / rowsMedian)} rows/s), ` +
    `server-built ${serverMedian.toFixed(2)} s (${Math.round(ROWS / serverMedian)} rows/s)`);
  out(`ratio server-built/export: ${ratio.toFixed(2)} (target <= ${TARGET_RATIO}); speed-up over the row path: ${speedup.toFixed(2)}x (target >= ${TARGET_SPEEDUP}x)`);
  if (ratio > TARGET_RATIO || speedup < TARGET_SPEEDUP) out('SHORT of a target');
}

const main = args.has('child')
  ? async () => process.stdout.write(`${JSON.stringify(await fullPath(args.get('server-json') === 'true'))}\n`)
  : parent;
main().catch((error: unknown) => {
  process.stderr.write(`mysql-extraction bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
