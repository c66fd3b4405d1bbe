/**
 * The benchmark's table, created once and kept: `fetcher_bench.orders_1m` with six columns (bigint,
 * numeric, text, timestamptz, boolean, int with some NULLs), about 150 bytes per row as JSON. It is
 * rebuilt only when its row count differs from the one asked for.
 */
import type { Client } from 'pg';

export const BENCH_SCHEMA = 'fetcher_bench';
export const BENCH_TABLE = 'orders_1m';

export async function ensureBenchTable(client: Client, rows: number): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${BENCH_SCHEMA}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${BENCH_SCHEMA}.${BENCH_TABLE} (
    id bigint PRIMARY KEY, amount numeric(12,2) NOT NULL, customer text NOT NULL, created_at timestamptz NOT NULL,
    active boolean NOT NULL, quantity integer)`);
  const { rows: counted } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${BENCH_SCHEMA}.${BENCH_TABLE}`);
  if (Number(counted[0].n) === rows) return;
  await client.query(`TRUNCATE ${BENCH_SCHEMA}.${BENCH_TABLE}`);
  await client.query(
    `INSERT INTO ${BENCH_SCHEMA}.${BENCH_TABLE}
     SELECT g, ((g::bigint * 7919) % 10000000) / 100.0, 'customer ' || md5(g::text),
            timestamptz '2020-01-01 00:00:00+00' + g * interval '1.234567 seconds', g % 3 = 0,
            CASE WHEN g % 50 = 0 THEN NULL ELSE g % 1000 END
     FROM generate_series(1, $1::int) g`,
    [rows],
  );
  await client.query(`VACUUM ANALYZE ${BENCH_SCHEMA}.${BENCH_TABLE}`);
}
