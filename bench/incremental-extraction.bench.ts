/**
 * Incremental extraction against the full extraction of the same PostgreSQL table (1,000,000 rows,
 * an index on the cursor `(updated_at, id)`), through the real engine and connector into a sink that
 * HMACs, encrypts and base64-encodes into /dev/null. Per repetition, in turn:
 *
 *   full    every row, no incremental (the COPY fast path)
 *   first   an incremental job without `after`: every row, ordered by (updated_at, id)
 *   tail    an incremental job whose `after` is the position of row rows-10,000: the 10,000 newest
 *
 * Targets: tail <= 5% of full; first <= 1.15x full. The table `fetcher_bench.incr_1m` is created once
 * and kept (rebuilt when its row count differs).
 *
 *   node bench/dist/incremental-extraction.bench.js [--rows=1000000] [--tail=10000] [--reps=3]
 *        [--reuse=off,on] [--host=127.0.0.1] [--port=5432] [--user=postgres] [--database=test]
 *
 * `--reuse` lists the modes run in turn: `off` lets the engine build (dial) and close a connector per
 * job, as an embedding host does by default; `on` keeps one connector across jobs, as the Worker does
 * with CONNECTION_REUSE_IDLE_MS (its pool dialled once, the catalogue still read per job).
 */
import {
  ConnectionInput, type ConnectionDescriptor, type Connector, type ConnectorRegistry, createEngine, createTenantContext, type CursorPosition, type Engine,
  type ExtractionRequest,
} from '@fetcher/engine';
import { MemoryConnectionStore } from '@fetcher/engine/memory';
import { createConnectorRegistry } from '@fetcher/connectors';
import { Client } from 'pg';
import { BENCH_SCHEMA } from './support/bench-table';
import { CryptoResultSink } from './support/crypto-result-sink';

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value = ''] = arg.replace(/^--/, '').split('=');
    return [key, value] as const;
  }),
);
const ROWS = Number(args.get('rows') ?? 1_000_000);
const TAIL = Number(args.get('tail') ?? 10_000);
const REPS = Number(args.get('reps') ?? 3);
const HOST = args.get('host') ?? '127.0.0.1';
const PORT = Number(args.get('port') ?? 5432);
const USER = args.get('user') ?? 'postgres';
const DATABASE = args.get('database') ?? 'test';
const TABLE = `${BENCH_SCHEMA}.incr_1m`;
const REUSE = (args.get('reuse') ?? 'off').split(',').filter(Boolean);
if (REUSE.some((mode) => mode !== 'on' && mode !== 'off')) throw new Error('--reuse takes a list of on and off');
const TAIL_TARGET = 0.05;
const FIRST_TARGET = 1.15;

async function ensureTable(client: Client): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${BENCH_SCHEMA}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (
    id bigint PRIMARY KEY, amount numeric(12,2) NOT NULL, customer text NOT NULL, updated_at timestamptz NOT NULL,
    active boolean NOT NULL, quantity integer)`);
  await client.query(`CREATE INDEX IF NOT EXISTS incr_1m_cursor ON ${TABLE} (updated_at, id)`);
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${TABLE}`);
  if (Number(rows[0].n) === ROWS) return;
  await client.query(`TRUNCATE ${TABLE}`);
  // Ids are not in cursor order, and every 100 rows share one timestamp (ties the tie-breaker orders).
  await client.query(
    `INSERT INTO ${TABLE}
     SELECT (g::bigint * 7919) % $1::bigint + 1, ((g::bigint * 7919) % 10000000) / 100.0, 'customer ' || md5(g::text),
            timestamptz '2020-01-01 00:00:00+00' + (g / 100) * interval '1.234567 seconds', g % 3 = 0,
            CASE WHEN g % 50 = 0 THEN NULL ELSE g % 1000 END
     FROM generate_series(1, $1::int) g`,
    [ROWS],
  );
  await client.query(`VACUUM ANALYZE ${TABLE}`);
}

/** The position of the row that has `TAIL` rows after it in (updated_at, id) order, as `after` takes it. */
async function tailPosition(client: Client): Promise<CursorPosition> {
  // The value as text with its microseconds: a JavaScript Date would cut them to milliseconds.
  const { rows } = await client.query<{ at: string; id: string }>(
    `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id FROM ${TABLE} ORDER BY updated_at DESC, id DESC OFFSET $1 LIMIT 1`,
    [TAIL],
  );
  return { value: rows[0].at, key: String(rows[0].id) };
}

async function timed(engine: Engine, sink: CryptoResultSink, request: ExtractionRequest): Promise<{ seconds: number; rows: number }> {
  const tenant = createTenantContext('bench');
  const started = process.hrtime.bigint();
  const plan = await engine.planExtraction(tenant, request);
  plan.mode = 'store';
  const result = await engine.executeExtraction(plan);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  sink.reports.length = 0;
  return { seconds, rows: result.reference?.rowCount ?? 0 };
}

/**
 * The Worker's reuse, reduced to what this bench needs: one connector per connection, built on first
 * use and kept; the engine's close after each job is ignored, `closeAll` ends them.
 */
class KeptConnectors implements ConnectorRegistry {
  readonly #kept = new Map<string, Connector>();
  constructor(private readonly inner: ConnectorRegistry) {}

  connector(type: string): ReturnType<ConnectorRegistry['connector']> {
    const factory = this.inner.connector(type);
    if (!factory) return undefined;
    return {
      build: (descriptor: ConnectionDescriptor): Connector => {
        let real = this.#kept.get(descriptor.configName);
        if (!real) {
          real = factory.build(descriptor);
          this.#kept.set(descriptor.configName, real);
        }
        const target = real;
        return new Proxy(target, {
          get: (t, prop) => {
            if (prop === 'close') return () => Promise.resolve();
            const value: unknown = Reflect.get(t, prop, t);
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
          },
        });
      },
    };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#kept.values()].map((c) => c.close()));
    this.#kept.clear();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const client = new Client({ host: HOST, port: PORT, user: USER, database: DATABASE });
  await client.connect();
  let after: CursorPosition;
  try {
    await ensureTable(client);
    after = await tailPosition(client);
  } finally {
    await client.end();
  }
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  out(`table ${TABLE}: ${ROWS} rows, index on (updated_at, id); tail after ${JSON.stringify(after)}; ${REPS} repetitions`);
  let missed = false;
  for (const reuse of REUSE) {
    const sink = new CryptoResultSink('/dev/null');
    const connectors = createConnectorRegistry({
      hostSafety: { allowPrivate: true, allowlist: [`${HOST}/32`, HOST] },
      // Statement budgets of ten minutes: on a busy machine a full read of the table can pass the defaults.
      timeouts: { queryMs: 600_000, filteredQueryMs: 600_000 },
    });
    const kept = reuse === 'on' ? new KeptConnectors(connectors) : undefined;
    const engine = createEngine({
      connectorRegistry: kept ?? connectors,
      connectionStore: new MemoryConnectionStore(),
      resultSink: sink,
      limits: { maxResultBytes: 2 ** 31 },
    });
    await engine.createConnection(
      createTenantContext('bench'),
      new ConnectionInput({ configName: 'bench', type: 'POSTGRESQL', host: HOST, port: PORT, databaseName: DATABASE, userName: USER, hostAttributes: { schemaScope: [BENCH_SCHEMA] } }),
    );
    const mappedFields = { bench: { [TABLE]: ['*'] } };
    const requests: Record<'full' | 'first' | 'tail', ExtractionRequest> = {
      full: { mappedFields },
      first: { mappedFields, incremental: { bench: { [TABLE]: { cursorField: 'updated_at' } } } },
      tail: { mappedFields, incremental: { bench: { [TABLE]: { cursorField: 'updated_at', after } } } },
    };
    const expected = { full: ROWS, first: ROWS, tail: TAIL };
    out(`reuse ${reuse}`);
    out('rep  full s  first s  tail s  first/full  tail/full');
    const times: Record<'full' | 'first' | 'tail', number[]> = { full: [], first: [], tail: [] };
    try {
      for (let rep = 1; rep <= REPS; rep++) {
        for (const name of ['full', 'first', 'tail'] as const) {
          const { seconds, rows } = await timed(engine, sink, requests[name]);
          if (rows !== expected[name]) throw new Error(`${name}: expected ${expected[name]} rows, got ${rows}`);
          times[name].push(seconds);
          process.stderr.write(`  rep ${rep} ${name}: ${seconds.toFixed(3)} s\n`);
        }
        const [full, first, tail] = [times.full[rep - 1], times.first[rep - 1], times.tail[rep - 1]];
        out(`${String(rep).padStart(3)}  ${full.toFixed(2).padStart(6)}  ${first.toFixed(2).padStart(7)}  ${tail.toFixed(3).padStart(6)}  ${(first / full).toFixed(2).padStart(10)}  ${(tail / full).toFixed(4).padStart(9)}`);
      }
    } finally {
      await kept?.closeAll();
    }
    const [full, first, tail] = [median(times.full), median(times.first), median(times.tail)];
    out(`median: full ${full.toFixed(2)} s, first incremental ${first.toFixed(2)} s, tail (${TAIL} rows) ${tail.toFixed(3)} s`);
    out(`tail/full ${(tail / full).toFixed(4)} (target <= ${TAIL_TARGET}); first/full ${(first / full).toFixed(2)} (target <= ${FIRST_TARGET})`);
    if (tail / full > TAIL_TARGET || first / full > FIRST_TARGET) missed = true;
  }
  if (missed) {
    out('REGRESSION: a target is missed');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`incremental-extraction bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
