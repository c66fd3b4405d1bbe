import { randomBytes } from 'node:crypto';
import {
  EngineError,
  ErrorText,
  JsonNumber,
  encodeCanonicalRow,
  isEncodedRows,
  type ConnectionDescriptor,
  type CursorItem,
  type QueryRequest,
  type Row,
} from '@fetcher/engine';
import type { Client } from 'pg';
import { HostNotAllowedError } from '../common/errors';
import type { LookupFn } from '../common/host-safety';
import type { ConnectorOptions } from '../common/options';
import { drain } from '../testing/drain-cursor';
import { PostgresConnectorFactory } from './connector-factory.postgres';
import type { PostgresConnector } from './connector.postgres';
import { adminClient, connectorWithReadPath, seed, testDescriptor } from './testing/test-database';

const suffix = randomBytes(4).toString('hex');
const SCHEMA = `fetcher_it_${suffix}`;
const SALES = `Sales_${suffix}`; // mixed case: only reachable quoted
const PUBLIC_TABLE = `fetcher_it_${suffix}_pub`;
const LOOPBACK = ['127.0.0.1/32', '::1/128', 'localhost'];
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: LOOPBACK } };

const descriptor = (overrides: Partial<ConnectionDescriptor> = {}, scope: string[] = [SCHEMA, SALES]): ConnectionDescriptor =>
  testDescriptor('crm', scope, overrides);

/** The row path only: every table read through a portal, values converted from text. */
const rowPathConnector = (scope: string[] = [SCHEMA, SALES]): PostgresConnector => connectorWithReadPath(descriptor({}, scope), OPTIONS, false);

const FIXTURES = [
  `CREATE SCHEMA ${SCHEMA}`,
  `CREATE SCHEMA "${SALES}"`,
  `CREATE TYPE ${SCHEMA}.mood AS ENUM ('sad', 'happy')`,
  `CREATE TABLE ${SCHEMA}."Customers" (
     "Id" bigint PRIMARY KEY, "FullName" text NOT NULL, email varchar(200), balance numeric(20,4), ratio float8,
     score float4, active boolean, born date, created_at timestamptz, local_ts timestamp(6), avatar bytea,
     uid uuid, profile jsonb, raw_json json, tags text[], feel ${SCHEMA}.mood, "Mixed Case" text, small int2, mid int4,
     price money, wake time, span interval, addr inet, code char(5), net cidr, letter "char", addrs inet[])`,
  `INSERT INTO ${SCHEMA}."Customers" VALUES
     (9007199254740993, 'Zoë 🚀 "quoted" \\ back', 'zoe@example.com', 12345678901234.5678, 0.1, 1.5, true, '1990-05-17',
      '2024-01-31 23:59:59.999999+02', '2024-01-31 10:00:00.12', '\\x00ff10', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
      '{"z": 1, "a": {"y": 12345678901234567890, "b": [1.10, 2]}, "m": null}', '{"b": 1.50, "a": "x"}',
      ARRAY['a', 'b,c', NULL, 'd"e'], 'happy', 'mixed', -32768, 2147483647, 1234.5, '07:30:00', '1 day 02:03:04', '10.0.0.1',
      'ab', '10.0.0.0/8', 'x', ARRAY['10.0.0.1'::inet, '10.0.0.0/24']),
     (-9223372036854775808, E'line\\nbreak\\ttab\\u0001', NULL, -0.5, 'NaN', '-Infinity', false, 'infinity', '-infinity',
      '0044-03-15 12:00:00 BC', '\\x', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', '[1e400, -0.0]', '{}', 'sad', NULL,
      32767, -2147483648, -0.01, '23:59:59.999999', '-1 mons', '::1', NULL, NULL, NULL, '{}'),
     (2, 'Bob', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `CREATE TABLE ${SCHEMA}.pg_hidden (id int)`,
  `CREATE VIEW ${SCHEMA}.customer_names AS SELECT "FullName" FROM ${SCHEMA}."Customers"`,
  `CREATE TABLE ${SCHEMA}.empty_table (id int)`,
  `CREATE TABLE "${SALES}"."Orders" (id int8 PRIMARY KEY, status text, amount numeric(10,2), placed_at timestamptz,
     day date, flag boolean, uid uuid)`,
  `INSERT INTO "${SALES}"."Orders" VALUES
     (1, 'new', 10.00, '2024-01-01 00:00:00+00', '2024-01-01', true, '00000000-0000-0000-0000-000000000001'),
     (2, 'paid', 20.50, '2024-01-02 23:59:59.999999+00', '2024-01-02', false, '00000000-0000-0000-0000-000000000002'),
     (3, 'paid', 30.00, '2024-01-03 00:00:00+00', '2024-01-03', true, '00000000-0000-0000-0000-000000000003'),
     (4, 'shipped', 40.25, '2024-01-04 12:00:00+00', '2024-01-04', NULL, '00000000-0000-0000-0000-000000000004'),
     (5, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `CREATE TABLE public.${PUBLIC_TABLE} (id int)`,
];

/** The canonical bytes of a table's rows as the engine would write them, whatever the item kinds. */
function encodedRows(items: readonly CursorItem[], table: string): string[] {
  const rows: string[] = [];
  for (const item of items) {
    if (item.table !== table) continue;
    if (isEncodedRows(item)) {
      // Rows are complete objects joined by ','; split on the boundaries the row count promises.
      const text = Buffer.from(item.encoded).toString('utf8');
      const parsed = JSON.parse(`[${text}]`) as unknown[];
      expect(parsed).toHaveLength(item.rowCount);
      rows.push(...splitRows(text, item.rowCount));
    } else {
      rows.push(encodeCanonicalRow(item.row));
    }
  }
  return rows;
}

/** Splits `{..},{..}` at top-level commas (strings may contain braces and commas). */
function splitRows(text: string, expected: number): string[] {
  const rows: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
    else if (c === ',' && depth === 0) {
      rows.push(text.slice(start, i));
      start = i + 1;
    }
  }
  rows.push(text.slice(start));
  expect(rows).toHaveLength(expected);
  return rows;
}

function rowsOf(items: readonly CursorItem[], table: string): Row[] {
  return items.filter((i) => i.table === table).map((i) => {
    if (isEncodedRows(i)) throw new Error('expected value rows');
    return i.row;
  });
}

describe('PostgresConnector against a real PostgreSQL', () => {
  let admin: Client;
  const factory = new PostgresConnectorFactory(OPTIONS);
  const signal = new AbortController().signal;

  beforeAll(async () => {
    admin = adminClient();
    await seed(admin, FIXTURES);
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS "${SALES}" CASCADE`);
    await admin.query(`DROP TABLE IF EXISTS public.${PUBLIC_TABLE}`);
    await admin.end();
  });

  describe('discovery', () => {
    it('lists base tables of the scope, sorted, qualified outside public, without views or system names', async () => {
      const connector = factory.build(descriptor({}, [SCHEMA, SALES, 'public']));
      try {
        await connector.testConnection(signal);
        const snapshot = await connector.discoverSchema(signal);
        const names = snapshot.tables.map((t) => t.name);
        const ours = names.filter((n) => n.includes(suffix));
        expect(ours).toEqual([`${SALES}.Orders`, `${SCHEMA}.Customers`, `${SCHEMA}.empty_table`, PUBLIC_TABLE]);
        expect([...names].sort()).toEqual(names); // these names are ASCII: UTF-8 order is code-unit order
        expect(names.some((n) => n.includes('pg_hidden') || n.includes('customer_names'))).toBe(false);
        const customers = snapshot.tables.find((t) => t.name === `${SCHEMA}.Customers`)!;
        expect(customers.fields).toContain('Mixed Case');
        // Nullability and text ordering are covered by incremental.postgres.int-spec.ts.
        expect(customers.columns?.map(({ name, kind, nativeType }) => ({ name, kind, nativeType }))).toEqual(
          expect.arrayContaining([
            { name: 'Id', kind: 'integer', nativeType: 'int8' },
            { name: 'balance', kind: 'decimal', nativeType: 'numeric' },
            { name: 'price', kind: 'decimal', nativeType: 'money' },
            { name: 'ratio', kind: 'float', nativeType: 'float8' },
            { name: 'active', kind: 'boolean', nativeType: 'bool' },
            { name: 'uid', kind: 'uuid', nativeType: 'uuid' },
            { name: 'born', kind: 'date', nativeType: 'date' },
            { name: 'created_at', kind: 'datetime', nativeType: 'timestamptz' },
            { name: 'wake', kind: 'time', nativeType: 'time' },
            { name: 'profile', kind: 'json', nativeType: 'jsonb' },
            { name: 'avatar', kind: 'binary', nativeType: 'bytea' },
            { name: 'FullName', kind: 'string', nativeType: 'text' },
            { name: 'tags', kind: 'other', nativeType: '_text' },
            { name: 'feel', kind: 'other', nativeType: 'mood' },
          ]),
        );
      } finally {
        await connector.close();
      }
    });

    it('honours the scope and reads public when the scope is empty', async () => {
      const scoped = factory.build(descriptor({}, [SALES]));
      const unscoped = factory.build(descriptor({}, []));
      try {
        const names = (await scoped.discoverSchema(signal)).tables.map((t) => t.name);
        expect(names).toEqual([`${SALES}.Orders`]);
        const publicNames = (await unscoped.discoverSchema(signal)).tables.map((t) => t.name);
        expect(publicNames).toContain(PUBLIC_TABLE);
        expect(publicNames.some((n) => n.includes('.'))).toBe(false);
      } finally {
        await scoped.close();
        await unscoped.close();
      }
    });
  });

  describe('extraction', () => {
    it('streams every table in order, with exact values, through the fast path and the row path alike', async () => {
      const request: QueryRequest = {
        configName: 'crm',
        tables: { [`${SCHEMA}.Customers`]: ['*'], [`${SALES}.Orders`]: ['id', 'status'], [`${SCHEMA}.empty_table`]: ['id'] },
      };
      const fast = factory.build(descriptor());
      const slow = rowPathConnector();
      try {
        const fastItems = await drain(await fast.queryStream(request, signal));
        const slowItems = await drain(await slow.queryStream(request, signal));
        expect(fastItems.every(isEncodedRows)).toBe(true);
        expect(slowItems.some(isEncodedRows)).toBe(false);
        // Tables in ascending order; the empty table has no items.
        expect([...new Set(fastItems.map((i) => i.table))]).toEqual([`${SALES}.Orders`, `${SCHEMA}.Customers`]);
        for (const table of [`${SALES}.Orders`, `${SCHEMA}.Customers`]) {
          expect(encodedRows(fastItems, table)).toEqual(encodedRows(slowItems, table));
        }
        const [zoe, min, bob] = rowsOf(slowItems, `${SCHEMA}.Customers`);
        expect(zoe).toMatchObject({
          Id: 9007199254740993n,
          FullName: 'Zoë 🚀 "quoted" \\ back',
          balance: '12345678901234.5678',
          ratio: 0.1,
          score: 1.5,
          active: true,
          born: '1990-05-17T00:00:00Z',
          created_at: '2024-01-31T21:59:59.999999Z',
          local_ts: '2024-01-31T10:00:00.12Z',
          avatar: Uint8Array.from([0, 255, 16]),
          uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
          profile: { a: { b: [new JsonNumber('1.10'), new JsonNumber('2')], y: new JsonNumber('12345678901234567890') }, m: null, z: new JsonNumber('1') },
          tags: ['a', 'b,c', null, 'd"e'],
          feel: 'happy',
          'Mixed Case': 'mixed',
          small: -32768,
          mid: 2147483647,
          // money is written as a plain decimal, whatever the server's lc_monetary prints.
          price: '1234.50',
          wake: '07:30:00',
          span: '1 day 02:03:04',
          addr: '10.0.0.1',
          code: 'ab   ',
          net: '10.0.0.0/8',
          letter: 'x',
          addrs: ['10.0.0.1', '10.0.0.0/24'],
        });
        expect(min).toMatchObject({ Id: -9223372036854775808n, price: '-0.01', born: 'infinity', created_at: '-infinity', local_ts: '-0043-03-15T12:00:00Z', avatar: new Uint8Array(0) });
        expect(Number.isNaN(min.ratio)).toBe(true);
        expect(bob).toEqual(expect.objectContaining({ Id: 2n, email: null, profile: null, tags: null }));
        const zoeBytes = encodedRows(fastItems, `${SCHEMA}.Customers`)[0];
        expect(zoeBytes).toContain('"Id":9007199254740993,');
        expect(zoeBytes).toContain('"profile":{"a":{"b":[1.10,2],"y":12345678901234567890},"m":null,"z":1}');
        expect(zoeBytes).toContain('"raw_json":{"a":"x","b":1.50}');
        expect(zoeBytes).toContain('"avatar":"AP8Q"');
        expect(zoeBytes).toContain('"price":"1234.50"');
        expect(encodedRows(fastItems, `${SCHEMA}.Customers`)[1]).toContain('"ratio":"NaN","raw_json":[1e400,-0.0],"score":"-Infinity"');
      } finally {
        await fast.close();
        await slow.close();
      }
    });

    it('returns only the requested fields, keyed by their catalog names', async () => {
      const connector = factory.build(descriptor());
      try {
        const items = await drain(await connector.queryStream({ configName: 'crm', tables: { [`${SCHEMA}.Customers`]: ['Mixed Case', 'Id'] } }, signal));
        expect(encodedRows(items, `${SCHEMA}.Customers`)).toEqual([
          '{"Id":9007199254740993,"Mixed Case":"mixed"}',
          '{"Id":-9223372036854775808,"Mixed Case":null}',
          '{"Id":2,"Mixed Case":null}',
        ]);
      } finally {
        await connector.close();
      }
    });

    it('refuses a table or field the snapshot does not have', async () => {
      const connector = factory.build(descriptor());
      try {
        await expect(connector.queryStream({ configName: 'crm', tables: { [`${SCHEMA}.customers`]: ['Id'] } }, signal)).rejects.toMatchObject({
          category: 'validation',
        });
        await expect(connector.queryStream({ configName: 'crm', tables: { [`${SCHEMA}.Customers`]: ['id'] } }, signal)).rejects.toMatchObject({
          category: 'validation',
        });
      } finally {
        await connector.close();
      }
    });
  });

  describe('filters', () => {
    const ORDERS = `${SALES}.Orders`;
    const ids = async (filters: Record<string, unknown>): Promise<unknown[]> => {
      const connector = factory.build(descriptor());
      try {
        const request = { configName: 'crm', tables: { [ORDERS]: ['id'] }, filters: { [ORDERS]: filters } } as QueryRequest;
        return rowsOf(await drain(await connector.queryStream(request, signal)), ORDERS).map((r) => r.id);
      } finally {
        await connector.close();
      }
    };

    it.each([
      ['eq one value', { status: { eq: ['paid'] } }, [2n, 3n]],
      ['eq null', { status: { eq: [null] } }, [5n]],
      ['eq many', { id: { eq: [1, '4'] } }, [1n, 4n]],
      ['gt', { amount: { gt: ['20.50'] } }, [3n, 4n]],
      ['gte', { amount: { gte: [20.5] } }, [2n, 3n, 4n]],
      ['lt', { id: { lt: [2] } }, [1n]],
      ['lte', { placed_at: { lte: ['2024-01-03T00:00:00Z'] } }, [1n, 2n, 3n]],
      ['between on a datetime with a date-only upper bound covers that whole day', { placed_at: { between: ['2024-01-01', '2024-01-02'] } }, [1n, 2n]],
      ['between on a date keeps the bound', { day: { between: ['2024-01-02', '2024-01-03'] } }, [2n, 3n]],
      ['in', { uid: { in: ['00000000-0000-0000-0000-000000000003', '00000000-0000-0000-0000-000000000001'] } }, [1n, 3n]],
      ['nin', { status: { nin: ['paid', 'new'] } }, [4n]],
      ['ne one value', { flag: { ne: [true] } }, [2n]],
      ['ne null', { flag: { ne: [null] } }, [1n, 2n, 3n]],
      ['ne many', { status: { ne: ['paid', 'new'] } }, [4n]],
      ['like', { status: { like: ['%ai%'] } }, [2n, 3n]],
      ['several fields, ANDed', { status: { eq: ['paid'] }, amount: { gt: [25] } }, [3n]],
    ])('%s', async (_name, filters, expected) => {
      expect(await ids(filters)).toEqual(expected);
    });

    it('refuses like on a non-text column with the documented text', async () => {
      await expect(ids({ amount: { like: ['1%'] } })).rejects.toMatchObject({ category: 'validation', message: `like requires a text column: crm.${ORDERS}.amount` });
    });
  });

  describe('connecting', () => {
    it('reports a wrong user and password as a connect error that quotes nothing', async () => {
      const password = `S3cret-${randomBytes(6).toString('hex')}`;
      const user = `nobody_${suffix}`;
      const connector = factory.build(descriptor({ userName: user, secrets: { password } }));
      const error = await connector.testConnection(signal).catch((e: unknown) => e);
      await connector.close();
      expect(error).toBeInstanceOf(EngineError);
      const engineError = error as EngineError;
      expect(engineError.category).toBe('connect');
      expect(engineError.message).toBe(ErrorText.connectFailed);
      const rendered = `${engineError.message} ${engineError.toString()} ${JSON.stringify(engineError)} ${String(engineError.stack)}`;
      for (const secret of [password, user, '127.0.0.1', 'postgres://', 'role', 'does not exist']) expect(rendered).not.toContain(secret);
    });

    it('denies loopback without an allowlist, before dialling', async () => {
      const strict = new PostgresConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: [] } });
      const connector = strict.build(descriptor());
      const error = await connector.testConnection(signal).catch((e: unknown) => e);
      await connector.close();
      expect(error).toMatchObject({ category: 'validation', message: 'datasource host is not allowed' });
      expect((error as EngineError).cause).toBeInstanceOf(HostNotAllowedError);
    });

    it('dials the checked address of a hostname (pinning) and works on it', async () => {
      const lookup: LookupFn = (name) => Promise.resolve(name === 'db.fetcher.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
      const pinned = new PostgresConnectorFactory({ hostSafety: { allowPrivate: false, allowlist: ['127.0.0.1/32'] }, lookup });
      const connector = pinned.build(descriptor({ host: 'db.fetcher.test' }, [SALES]));
      try {
        await connector.testConnection(signal);
        expect((await connector.discoverSchema(signal)).tables.map((t) => t.name)).toEqual([`${SALES}.Orders`]);
      } finally {
        await connector.close();
      }
    });

    it.each([
      ['prefer', 'falls back to plain TCP', true],
      ['allow', 'connects over plain TCP', true],
      ['disable', 'connects over plain TCP', true],
      ['require', 'fails on a server without TLS', false],
      ['verify-full', 'fails on a server without TLS', false],
    ])('ssl mode %s %s', async (sslMode, _what, succeeds) => {
      const connector = factory.build(descriptor({ sslMode }));
      try {
        if (succeeds) await expect(connector.testConnection(signal)).resolves.toBeUndefined();
        else await expect(connector.testConnection(signal)).rejects.toMatchObject({ category: 'connect', message: ErrorText.connectFailed });
      } finally {
        await connector.close();
      }
    });

    it('is idempotent to close, also without a connection', async () => {
      const connector = factory.build(descriptor());
      await connector.close();
      await connector.close();
      await expect(connector.testConnection(signal)).rejects.toMatchObject({ category: 'connect' });
    });
  });
});
