import { randomBytes } from 'node:crypto';
import {
  EngineError,
  encodeCanonicalRow,
  isEncodedRows,
  type CursorItem,
  type QueryRequest,
} from '@fetcher/engine';
import type { Client } from 'pg';
import type { ConnectorOptions } from '../common/options';
import { drain } from '../testing/drain-cursor';
import type { PostgresConnector } from './connector.postgres';
import { adminClient, connectorWithReadPath, seed, testDescriptor } from './testing/test-database';

const suffix = randomBytes(4).toString('hex');
const SCHEMA = `fetcher_copy_${suffix}`;
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32'] } };
const BIG_ROWS = 100_000;

const DESCRIPTOR = testDescriptor('dw', [SCHEMA]);

const connector = (copyFastPath: boolean, timeouts: ConnectorOptions['timeouts'] = {}): PostgresConnector =>
  connectorWithReadPath(DESCRIPTOR, { ...OPTIONS, timeouts }, copyFastPath);

/** Every type the value mapping knows, with random values across their ranges and the odd edge. */
const FIXTURES = [
  `CREATE SCHEMA ${SCHEMA}`,
  `CREATE TYPE ${SCHEMA}.level AS ENUM ('low', 'high')`,
  `CREATE TABLE ${SCHEMA}.mixed (
     g int4, i2 int2, i8 int8, n numeric, f4 float4, f8 float8, flag bool, t text, vc varchar(50), ch char(3),
     nm name, u uuid, d date, ts timestamp, tstz timestamptz, tm time, ttz timetz, iv interval, j json, jb jsonb,
     b bytea, ai int8[], at text[], ats timestamptz[], an numeric[], ab bool[], m money, ip inet, net cidr, lvl ${SCHEMA}.level,
     o oid, bits bit varying(8), pt point, x xml, "__proto__" int4)`,
  `INSERT INTO ${SCHEMA}.mixed
   SELECT g,
     (g % 65536 - 32768)::int2,
     CASE WHEN g % 11 = 0 THEN 9223372036854775807 - g WHEN g % 13 = 0 THEN -9223372036854775807 + g
          ELSE floor((random() - 0.5) * 1.8e19)::numeric::int8 END,
     CASE WHEN g % 97 = 0 THEN 'NaN'::numeric ELSE round(((random() - 0.5) * 10 ^ (g % 30))::numeric, g % 9) END,
     CASE WHEN g % 89 = 0 THEN 'Infinity'::float4 ELSE ((random() - 0.5) * 10 ^ (g % 50 - 25))::float4 END,
     CASE g % 101 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8 WHEN 2 THEN '-Infinity'::float8
          ELSE (random() - 0.5) * 10 ^ (g % 60 - 30) END,
     CASE WHEN g % 7 = 0 THEN NULL ELSE g % 2 = 0 END,
     (SELECT string_agg(chr(CASE k % 3 WHEN 0 THEN 65536 + (random() * 60000)::int WHEN 1 THEN 19968 + (random() * 2000)::int
                                  ELSE 1 + (random() * 300)::int END), '')
        FROM generate_series(0, g % 23) k),
     'v' || g, chr(65 + g % 26), 'name_' || g,
     md5(g::text)::uuid,
     CASE g % 53 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity'::date WHEN 2 THEN '0005-02-29 BC'::date
          ELSE date '0001-01-01' + (random() * 3650000)::int END,
     CASE g % 59 WHEN 0 THEN 'infinity'::timestamp WHEN 1 THEN '1000-01-01 00:00:00 BC'::timestamp
          ELSE timestamp '1000-01-01' + random() * interval '1100 years' END,
     CASE g % 61 WHEN 0 THEN '-infinity'::timestamptz WHEN 1 THEN '12345-06-07 08:09:10.5+00'::timestamptz
          ELSE timestamptz '1900-01-01 00:00:00+00' + random() * interval '200 years' END,
     time '00:00' + random() * interval '24 hours',
     (time '00:00' + random() * interval '24 hours')::timetz,
     g * interval '1 minute 3.5 seconds' - interval '3 days',
     json_build_object('k' || g, g, 'arr', json_build_array(random(), 'x', NULL), 'big', 12345678901234567890123),
     jsonb_build_object('z', g, 'a', jsonb_build_object('y', random(), 'b', 'é\\"'), 'n', 1.50),
     CASE WHEN g % 5 = 0 THEN ''::bytea ELSE decode(md5(g::text) || md5((g * 7)::text), 'hex') END,
     ARRAY[g::int8 * 1000000000000, -g, NULL],
     ARRAY['a,b', 'q"uote', 'back\\slash', NULL, '', 'NULL', ' sp '],
     ARRAY[timestamptz '2024-01-01 00:00:00.123+00' + g * interval '1 second', NULL],
     ARRAY[(g * 1.5)::numeric, 'NaN'],
     ARRAY[true, false, NULL],
     (g * 1.37)::numeric::money,
     ('10.' || (g % 256) || '.0.' || (g % 200 + 1))::inet,
     ('10.' || (g % 256) || '.0.0/16')::cidr,
     CASE WHEN g % 2 = 0 THEN 'low'::${SCHEMA}.level ELSE 'high' END,
     g::oid,
     (g % 256)::bit(8)::varbit,
     point(g, -g / 3.0),
     ('<r n="' || g || '">t&amp;</r>')::xml,
     g
   FROM generate_series(1, 3000) g`,
  `INSERT INTO ${SCHEMA}.mixed (g) VALUES (0)`,
  `CREATE TABLE ${SCHEMA}.big (id int8, payload text, at timestamptz)`,
  `INSERT INTO ${SCHEMA}.big SELECT g, repeat(md5(g::text), 4), timestamptz '2024-01-01 00:00:00+00' + g * interval '1 ms'
   FROM generate_series(1, ${BIG_ROWS}) g`,
  `CREATE DOMAIN ${SCHEMA}.dflag AS bool`,
  `CREATE DOMAIN ${SCHEMA}.dflag2 AS ${SCHEMA}.dflag`,
  `CREATE DOMAIN ${SCHEMA}.dbox AS box`,
  `CREATE DOMAIN ${SCHEMA}.dstamp AS timestamptz`,
  `CREATE TABLE ${SCHEMA}.domains (id int4, flag ${SCHEMA}.dflag, flags ${SCHEMA}.dflag[], nested ${SCHEMA}.dflag2[],
     boxes ${SCHEMA}.dbox[], stamps ${SCHEMA}.dstamp[])`,
  `INSERT INTO ${SCHEMA}.domains VALUES (1, true, '{t,f,NULL}', '{f}', ARRAY['(1,1),(0,0)', '(2,2),(1,1)']::${SCHEMA}.dbox[],
     ARRAY['2024-01-01 00:00:00.5+00']::${SCHEMA}.dstamp[])`,
  // Incremental reads: 1,000 rows in blocks of 100 sharing one time, int8 keys beyond 2^53, NULL notes,
  // amounts from 0 to 12 (as text, '10' sorts before '9').
  `CREATE TABLE ${SCHEMA}.inc (id int8 PRIMARY KEY, at timestamptz NOT NULL, amount numeric NOT NULL, code text COLLATE "C" NOT NULL, note text)`,
  `INSERT INTO ${SCHEMA}.inc SELECT 9007199254740000 + (g * 7919) % 1009, timestamptz '2026-01-01 00:00:00.5Z' + (g / 100) * interval '1 minute',
     (g % 97) / 8.0, 'c' || lpad(g::text, 4, '0') || CASE WHEN g % 50 = 0 THEN '''' ELSE '' END, CASE WHEN g % 3 = 0 THEN NULL ELSE 'n' END
   FROM generate_series(1, 1000) g`,
  `CREATE TABLE ${SCHEMA}.locked (id int8)`,
  `INSERT INTO ${SCHEMA}.locked VALUES (1), (2)`,
];

/** The canonical bytes a table's items stand for, as the engine joins them (rows separated by ','). */
function documentOf(items: readonly CursorItem[]): string {
  return items.map((item) => (isEncodedRows(item) ? Buffer.from(item.encoded).toString('utf8') : encodeCanonicalRow(item.row))).join(',');
}

describe('the PostgreSQL COPY fast path against a real PostgreSQL', () => {
  let admin: Client;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    admin = adminClient();
    await seed(admin, FIXTURES);
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
  });

  /** Sessions of this suite still running a statement or holding a portal. */
  /**
   * The sessions still busy once the server has had time to act on the close: leaving `active` after
   * a canceled COPY or portal takes the server a round trip, which a loaded machine can stretch (seen
   * in CI), so this polls for up to 5 s rather than reading once.
   */
  async function busySessionsAfterClose(): Promise<string[]> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const busy = await busySessions();
      if (busy.length === 0 || Date.now() > deadline) return busy;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function busySessions(): Promise<string[]> {
    const { rows } = await admin.query<{ state: string }>(
      `SELECT state FROM pg_stat_activity WHERE application_name = 'fetcher' AND query LIKE $1 AND pid <> pg_backend_pid()
         AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
      [`%${SCHEMA}%`],
    );
    return rows.map((r) => r.state);
  }

  it('writes the same bytes as encodeCanonicalRow over the row path, for every row and type', async () => {
    const request: QueryRequest = { configName: 'dw', tables: { [`${SCHEMA}.mixed`]: ['*'] } };
    const fast = connector(true);
    const slow = connector(false);
    try {
      const fastItems = await drain(await fast.queryStream(request, signal));
      const slowItems = await drain(await slow.queryStream(request, signal));
      expect(fastItems.length).toBeGreaterThan(0);
      expect(fastItems.every(isEncodedRows)).toBe(true);
      expect(slowItems).toHaveLength(3001);
      const fastRows = JSON.parse(`[${documentOf(fastItems)}]`) as unknown[];
      expect(fastRows).toHaveLength(3001);
      const rowTexts = slowItems.map((item) => (isEncodedRows(item) ? '' : encodeCanonicalRow(item.row)));
      // Compared row by row, so a difference names its row.
      let offset = 0;
      const fastText = documentOf(fastItems);
      for (const [i, row] of rowTexts.entries()) {
        const actual = fastText.slice(offset, offset + row.length);
        if (actual !== row) expect({ row: i, actual }).toEqual({ row: i, actual: row });
        offset += row.length + 1;
      }
      expect(offset - 1).toBe(fastText.length);
    } finally {
      await fast.close();
      await slow.close();
    }
  });

  describe('incremental tables', () => {
    const TABLE = `${SCHEMA}.inc`;
    const base = { cursorField: 'at', cursorKind: 'datetime', tieBreaker: 'id', tieBreakerKind: 'integer' } as const;
    const read = async (copyFastPath: boolean, query: Record<string, unknown>) => {
      const reader = connector(copyFastPath);
      try {
        const request = { configName: 'dw', tables: { [TABLE]: ['id', 'at', 'amount', 'code', 'note'] }, incremental: { [TABLE]: { ...base, ...query } } } as QueryRequest;
        return await drain(await reader.queryStream(request, signal));
      } finally {
        await reader.close();
      }
    };

    it.each<[string, Record<string, unknown>]>([
      ['from the start', {}],
      ['after a position inside a block of ties, with a limit', { after: { value: '2026-01-01T00:03:00.5Z', key: 9007199254740500n }, limit: 250 }],
      ['a lag window', { after: { value: '2026-01-01T00:05:00.5Z', key: 9007199254740001n }, from: '2026-01-01T00:04:00Z' }],
      ['a decimal cursor', { cursorField: 'amount', cursorKind: 'decimal', after: { value: '2.5', key: 9007199254740000n } }],
      ['a text cursor whose bound needs no quoting', { cursorField: 'code', cursorKind: 'string', after: { value: 'c0500', key: 1n }, limit: 10 }],
    ])('reads %s through COPY: the row path bytes, each chunk reporting its last row as the position', async (_name, query) => {
      const fast = await read(true, query);
      const slow = await read(false, query);
      expect(fast.length).toBeGreaterThan(0);
      expect(fast.every(isEncodedRows)).toBe(true);
      expect(documentOf(fast)).toBe(documentOf(slow));
      const rows = slow.map((item) => (isEncodedRows(item) ? {} : item.row));
      let seen = 0;
      for (const item of fast) {
        if (!isEncodedRows(item)) continue;
        seen += item.rowCount;
        const last = rows[seen - 1] as { at?: string; amount?: string; code?: string; id: string };
        const cursor = query.cursorField === undefined ? last.at : last[query.cursorField as 'amount' | 'code'];
        expect(item.position).toEqual({ value: cursor, key: String(last.id) });
      }
      expect(seen).toBe(rows.length);
    });

    it('keeps the row path (bound parameters) for a bound that would need quoting, and for filtered tables', async () => {
      const quoted = await read(true, { cursorField: 'code', cursorKind: 'string', after: { value: "c0050'", key: 1n }, limit: 5 });
      expect(quoted.some(isEncodedRows)).toBe(false);
      expect(quoted.map((item) => (isEncodedRows(item) ? '' : item.row.code))).toEqual(["c0050'", 'c0051', 'c0052', 'c0053', 'c0054']); // (c0050', 1) is before the row c0050' itself
      const reader = connector(true);
      try {
        const request = {
          configName: 'dw', tables: { [TABLE]: ['id', 'at'] }, filters: { [TABLE]: { note: { eq: ['n'] } } }, incremental: { [TABLE]: { ...base, limit: 3 } },
        } as unknown as QueryRequest;
        const items = await drain(await reader.queryStream(request, signal));
        expect(items.some(isEncodedRows)).toBe(false);
        expect(items).toHaveLength(3);
      } finally {
        await reader.close();
      }
    });
  });

  it.each([true, false])('converts arrays of domain types by the base type (COPY path: %p)', async (copyFastPath) => {
    const reader = connector(copyFastPath);
    try {
      const items = await drain(await reader.queryStream({ configName: 'dw', tables: { [`${SCHEMA}.domains`]: ['*'] } }, signal));
      expect(documentOf(items)).toBe(
        '{"boxes":["(1,1),(0,0)","(2,2),(1,1)"],"flag":true,"flags":[true,false,null],"id":1,"nested":[false],' +
          '"stamps":["2024-01-01T00:00:00.5Z"]}',
      );
    } finally {
      await reader.close();
    }
  });

  it('streams a large table in bounded chunks of whole rows', async () => {
    const connection = connector(true);
    try {
      const items = await drain(await connection.queryStream({ configName: 'dw', tables: { [`${SCHEMA}.big`]: ['id', 'payload'] } }, signal));
      let rows = 0;
      for (const item of items) {
        if (!isEncodedRows(item)) throw new Error('expected encoded rows');
        expect(item.encoded.length).toBeLessThan(80_000);
        expect(item.rowCount).toBeLessThanOrEqual(256);
        const parsed = JSON.parse(`[${Buffer.from(item.encoded).toString('utf8')}]`) as { id: number }[];
        expect(parsed).toHaveLength(item.rowCount);
        expect(parsed[0].id).toBe(rows + 1);
        rows += item.rowCount;
      }
      expect(rows).toBe(BIG_ROWS);
      expect(await busySessionsAfterClose()).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it.each([
    ['the fast path', true, undefined],
    ['the row path', false, undefined],
    ['a filtered read', true, { id: { gt: [0] } }],
  ])('stops the statement when the signal aborts mid-stream (%s)', async (_name, copyFastPath, filter) => {
    const controller = new AbortController();
    const connection = connector(copyFastPath);
    const request: QueryRequest = {
      configName: 'dw',
      tables: { [`${SCHEMA}.big`]: ['id', 'payload'] },
      ...(filter ? { filters: { [`${SCHEMA}.big`]: filter } } : {}),
    };
    try {
      const cursor = await connection.queryStream(request, controller.signal);
      expect(await cursor.next()).not.toBeNull();
      expect(await cursor.next()).not.toBeNull();
      controller.abort();
      const error = await cursor.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect(error).toMatchObject({ category: 'canceled' });
      await cursor.close();
      expect(await busySessionsAfterClose()).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it.each([
    ['the fast path', true],
    ['the row path', false],
  ])('releases the server-side statement when the caller closes early (%s)', async (_name, copyFastPath) => {
    const connection = connector(copyFastPath);
    try {
      const cursor = await connection.queryStream({ configName: 'dw', tables: { [`${SCHEMA}.big`]: ['*'] } }, signal);
      expect(await cursor.next()).not.toBeNull();
      await cursor.close();
      expect(await busySessionsAfterClose()).toEqual([]);
      // The session went back to the pool healthy: the next read on the same connector works.
      const items = await drain(await connection.queryStream({ configName: 'dw', tables: { [`${SCHEMA}.locked`]: ['id'] } }, signal));
      expect(documentOf(items)).toBe('{"id":1},{"id":2}');
    } finally {
      await connection.close();
    }
  });

  it.each([
    ['the fast path', true, undefined],
    ['a filtered read', true, { id: { gte: [1] } }],
  ])('reports the statement timeout as timeout (%s)', async (_name, copyFastPath, filter) => {
    const connection = connector(copyFastPath, { queryMs: 200, filteredQueryMs: 200 });
    const locker = adminClient();
    await locker.connect();
    try {
      await connection.discoverSchema(signal);
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${SCHEMA}.locked IN ACCESS EXCLUSIVE MODE`);
      const request: QueryRequest = {
        configName: 'dw',
        tables: { [`${SCHEMA}.locked`]: ['id'] },
        ...(filter ? { filters: { [`${SCHEMA}.locked`]: filter } } : {}),
      };
      const cursor = await connection.queryStream(request, signal);
      const error = await cursor.next().catch((e: unknown) => e);
      await cursor.close();
      expect(error).toMatchObject({ category: 'timeout', message: 'datasource query timed out' });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
      await connection.close();
    }
  });
});
