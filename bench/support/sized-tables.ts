/**
 * Tables of a given row count for the scaling runs, all with the rows of `fetcher_bench.orders_1m`
 * (bench-table.ts): up to 1M a prefix of it, above that the same generator continued. Created once
 * and kept, like the 1M table.
 */
import type { Client } from 'pg';
import { BENCH_SCHEMA, BENCH_TABLE } from './bench-table';

/** 100000 -> "100k", 3000000 -> "3m". */
export function rowsLabel(rows: number): string {
  if (rows % 1_000_000 === 0) return `${rows / 1_000_000}m`;
  if (rows % 1_000 === 0) return `${rows / 1_000}k`;
  return String(rows);
}

/** "100k", "1M", "3m", "2500" -> rows. */
export function parseRows(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  if (!match) throw new Error(`not a row count: ${text}`);
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[match[2].toLowerCase() as '' | 'k' | 'm'];
  return Math.round(Number(match[1]) * scale);
}

/** The qualified name of a table of `rows` rows, created if missing (the 1M table must exist). */
export async function ensureSizedTable(client: Client, rows: number): Promise<string> {
  if (rows === 1_000_000) return `${BENCH_SCHEMA}.${BENCH_TABLE}`;
  const table = `${BENCH_SCHEMA}.orders_${rowsLabel(rows)}`;
  const { rows: found } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_tables WHERE schemaname = $1 AND tablename = $2`, [BENCH_SCHEMA, `orders_${rowsLabel(rows)}`]);
  if (Number(found[0].n) > 0) return table;
  if (rows < 1_000_000) {
    await client.query(`CREATE TABLE ${table} AS SELECT * FROM ${BENCH_SCHEMA}.${BENCH_TABLE} WHERE id <= ${rows}`);
  } else {
    // The 1M table's generator, continued: same columns, same value pattern.
    await client.query(
      `CREATE TABLE ${table} AS
       SELECT g::bigint AS id, (((g::bigint * 7919) % 10000000) / 100.0)::numeric(12,2) AS amount, 'customer ' || md5(g::text) AS customer,
              timestamptz '2020-01-01 00:00:00+00' + g * interval '1.234567 seconds' AS created_at, g % 3 = 0 AS active,
              CASE WHEN g % 50 = 0 THEN NULL ELSE g % 1000 END AS quantity
       FROM generate_series(1, $1::int) g`,
      [rows],
    );
  }
  await client.query(`VACUUM ANALYZE ${table}`);
  return table;
}
