import { randomBytes } from 'node:crypto';
import { encodeCanonicalRow, isEncodedRows, type CursorItem, type QueryRequest } from '@fetcher/engine';
import { createConnection, type Connection } from 'mysql2/promise';
import type { ConnectorOptions } from '../common/options';
import { drain } from '../testing/drain-cursor';
import type { MysqlConnector } from './connector.mysql';
import { mysqlConnectorWithReadPath } from './testing/read-path';

const DATABASE = `fetcher_json_${randomBytes(4).toString('hex')}`;
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32'] } };
const ROWS = 3000;

const connector = (serverJsonPath: boolean, timeouts: ConnectorOptions['timeouts'] = {}): MysqlConnector =>
  mysqlConnectorWithReadPath(
    { configName: 'crm', type: 'MYSQL', host: '127.0.0.1', port: 3306, databaseName: DATABASE, userName: 'root', sslMode: '' },
    { ...OPTIONS, timeouts },
    serverJsonPath,
  );

/** A string of `n` characters drawn from controls, quotes, backslashes, ASCII, BMP and astral planes. */
const MIXED_TEXT = (g: string, n: string) =>
  `CONVERT((SELECT GROUP_CONCAT(CHAR(CASE chars.seq % 5 WHEN 0 THEN FLOOR(RAND() * 32) WHEN 1 THEN ELT(1 + chars.seq % 3, 34, 92, 47)
      WHEN 2 THEN 32 + FLOOR(RAND() * 95) WHEN 3 THEN 160 + FLOOR(RAND() * 20000) ELSE 65536 + FLOOR(RAND() * 60000) END
      USING utf32) SEPARATOR '') FROM seq_0_to_40 AS chars WHERE chars.seq < ${g} % ${n}) USING utf8mb4)`;

/** Every column type the server-built path renders, and names that need escaping as JSON keys. */
const FIXTURES = [
  `CREATE TABLE every_type (
     g INT NOT NULL, ti TINYINT, flag TINYINT(1), su SMALLINT UNSIGNED, mi MEDIUMINT, zf INT(6) ZEROFILL, bi BIGINT,
     bu BIGINT UNSIGNED, yr YEAR, de DECIMAL(30,10), dz DECIMAL(8,2) ZEROFILL, fl FLOAT, db DOUBLE, b1 BIT(1), b12 BIT(12),
     b64 BIT(64), ch CHAR(5), vc VARCHAR(200), tt TINYTEXT, tx TEXT, lt LONGTEXT, en ENUM('a','b"','c\\\\'), st SET('x','y','z'),
     l1 VARCHAR(20) CHARACTER SET latin1, bn BINARY(4), vb VARBINARY(100), bl BLOB, d DATE, dt DATETIME, dt6 DATETIME(6),
     ts3 TIMESTAMP(3) NULL, tm TIME, tm3 TIME(3), js JSON,
     \`__proto__\` INT, \`sel\`\`ect\` INT, \`é key\` INT, \`日本\` INT, \`"q"\` INT, \`back\\\\slash\` INT, \`Zed\` INT
   ) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`,
  `INSERT INTO every_type
   SELECT seq,
     CAST(seq % 256 AS SIGNED) - 128, seq % 2, seq % 65536, (seq * 7919) % 16777216 - 8388608, seq % 1000,
     CASE WHEN seq % 11 = 0 THEN 9223372036854775807 - seq WHEN seq % 13 = 0 THEN -9223372036854775807 + seq
          ELSE FLOOR((RAND() - 0.5) * 1e18) END,
     CASE WHEN seq % 17 = 0 THEN 18446744073709551615 - seq ELSE seq * 1000003 END,
     1901 + seq % 255,
     CAST((RAND() - 0.5) * POW(10, seq % 20) AS DECIMAL(30,10)),
     seq % 100000 / 7,
     (RAND() - 0.5) * POW(10, seq % 40 - 20),
     CASE seq % 97 WHEN 0 THEN -0.0 WHEN 1 THEN 1e22 WHEN 2 THEN 1.7976931348623157e308 WHEN 3 THEN 5e-324
          ELSE (RAND() - 0.5) * POW(10, seq % 60 - 30) END,
     seq % 2, seq % 4096, CASE WHEN seq % 3 = 0 THEN 18446744073709551615 ELSE seq END,
     SUBSTRING(MD5(seq), 1, seq % 6), ${MIXED_TEXT('o.seq', '37')}, CONCAT('t', seq, '\\\\u001F'), REPEAT('ab\\n', seq % 50),
     ${MIXED_TEXT('o.seq', '41')}, ELT(1 + seq % 3, 'a', 'b"', 'c\\\\'), ELT(1 + seq % 4, '', 'x', 'x,z', 'x,y,z'),
     CONVERT(CONCAT('caf', CHAR(233 USING latin1), seq) USING latin1),
     UNHEX(SUBSTRING(MD5(seq), 1, 8)), UNHEX(REPEAT(MD5(seq), seq % 4)), UNHEX(REPEAT(MD5(seq * 3), seq % 7)),
     DATE '1000-01-01' + INTERVAL (seq * 1237) % 3000000 DAY,
     TIMESTAMP '1000-01-01 00:00:00' + INTERVAL FLOOR(RAND() * 280000000000) SECOND,
     TIMESTAMP '1970-01-01 00:00:00' + INTERVAL FLOOR(RAND() * 2e15) MICROSECOND,
     CASE WHEN seq % 5 = 0 THEN NULL ELSE TIMESTAMP '1970-01-02 00:00:00' + INTERVAL FLOOR(RAND() * 2e12) * 1000 MICROSECOND END,
     SEC_TO_TIME(FLOOR((RAND() - 0.5) * 6000000)), SEC_TO_TIME((RAND() - 0.5) * 100000),
     JSON_OBJECT('z', seq, 'a', JSON_ARRAY(1.50, 'x', NULL, TRUE), 'big', 12345678901234567890123, 'é', ${MIXED_TEXT('o.seq', '13')}),
     seq, seq, seq, seq, seq, seq, seq
   FROM (SELECT CAST(seq AS SIGNED) AS seq FROM seq_1_to_${ROWS}) AS o`,
  // Edge rows: every value NULL, extremes, literal escape texts, zero dates, JSON written by hand.
  `INSERT INTO every_type (g) VALUES (0)`,
  `SET SESSION sql_mode = ''`,
  `INSERT INTO every_type (g, ti, su, bi, bu, yr, de, fl, db, b64, vc, tx, d, dt, dt6, ts3, tm, js, bn, vb, bl)
   VALUES (-1, -128, 65535, -9223372036854775808, 18446744073709551615, 0, -12345678901234567890.0123456789, 3.40282e38, -0.0, 0,
     '', 'q"u\\\\o\\\\u001F\\\\\\\\u001f\\t\\r\\n\\b\\f', '0000-00-00', '0000-00-00 00:00:00', '2024-00-15 10:00:00.000100', '0000-00-00 00:00:00.000',
     '-838:59:59', '{"b": 1, "a": [1E5, -0, 0.10, 1e-7], "a": "dup", "n": {"y": "\\\\u00e9\\\\u001F", "x": {}}}', X'00000000', X'', X'')`,
  `INSERT INTO every_type (g, dt, dt6, ts3, d, js, db, fl) VALUES
     (-2, '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', '9999-12-31', '[]', 123456789012345680000, 1e-10),
     (-3, '2024-02-29 00:00:00', '2024-02-29 00:00:00.000000', '1970-01-01 00:00:01.000', '2024-02-29', '"text"', 1e21, 16777217),
     (-4, '2024-02-29 12:00:00', '2024-02-29 12:00:00.500000', '2000-01-01 00:00:00.010', '0000-01-01', '12345678901234567890', 1e-7, 0.1)`,
  'CREATE TABLE with_uuid (id INT, tag UUID)',
  "INSERT INTO with_uuid VALUES (1, '123e4567-e89b-12d3-a456-426614174000'), (2, NULL)",
  'CREATE TABLE locked (id INT)',
  'INSERT INTO locked VALUES (1)',
  'CREATE TABLE big (n INT NOT NULL PRIMARY KEY, filler VARCHAR(1000) NOT NULL)',
  "INSERT INTO big SELECT seq, REPEAT('x', 800) FROM seq_1_to_20000",
];

/** The canonical bytes a table's items stand for, as the engine joins them (rows separated by ','). */
function documentOf(items: readonly CursorItem[]): string {
  return items.map((item) => (isEncodedRows(item) ? Buffer.from(item.encoded).toString('utf8') : encodeCanonicalRow(item.row))).join(',');
}

/** Asserts byte identity row by row, so that a difference names its row. */
function expectSameRows(fastItems: readonly CursorItem[], slowItems: readonly CursorItem[]): void {
  const fastText = documentOf(fastItems);
  let offset = 0;
  for (const [i, item] of slowItems.entries()) {
    const row = documentOf([item]);
    const actual = fastText.slice(offset, offset + row.length);
    if (actual !== row) expect({ row: i, actual }).toEqual({ row: i, actual: row });
    offset += row.length + 1;
  }
  expect(offset - 1).toBe(fastText.length);
}

describe('the MariaDB server-built JSON path against a real MariaDB', () => {
  let admin: Connection;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    admin = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', charset: 'utf8mb4' });
    await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.query(`USE \`${DATABASE}\``);
    for (const sql of FIXTURES) await admin.query(sql);
  });

  afterAll(async () => {
    if (!admin) return;
    await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
    await admin.end();
  });

  async function bothPaths(request: Omit<QueryRequest, 'configName'>): Promise<{ fast: CursorItem[]; slow: CursorItem[] }> {
    const fast = connector(true);
    const slow = connector(false);
    try {
      return {
        fast: await drain(await fast.queryStream({ configName: 'crm', ...request }, signal)),
        slow: await drain(await slow.queryStream({ configName: 'crm', ...request }, signal)),
      };
    } finally {
      await fast.close();
      await slow.close();
    }
  }

  it('writes the same bytes as encodeCanonicalRow over the row path, for every row and type', async () => {
    const { fast, slow } = await bothPaths({ tables: { every_type: ['*'] } });
    expect(fast.length).toBeGreaterThan(0);
    expect(fast.every(isEncodedRows)).toBe(true);
    expect(slow.some(isEncodedRows)).toBe(false);
    expect(slow).toHaveLength(ROWS + 5);
    expect(fast.reduce((n, item) => n + (isEncodedRows(item) ? item.rowCount : 0), 0)).toBe(ROWS + 5);
    expectSameRows(fast, slow);
    // The cases JSON_QUOTE and TO_BASE64 write differently from the canonical form occur in the data.
    const text = documentOf(fast);
    expect(text).toContain('\\u001f');
    expect(text).toContain('t1\\\\u001F');
    expect(text).toMatch(/"bl":"[A-Za-z0-9+/]{77,}/);
    expect(text).toContain('"dt":"0000-00-00 00:00:00"');
    expect(text).toContain('"db":1e+21');
  });

  it('keeps field selection (a repeated field once) and filters on the server-built path', async () => {
    const request = {
      tables: { every_type: ['vc', 'g', 'js', 'g', 'db', 'Zed'] },
      filters: { every_type: { g: { between: [100, 400] }, en: { ne: ['a'] } } },
    };
    const { fast, slow } = await bothPaths(request);
    expect(fast.every(isEncodedRows)).toBe(true);
    expect(slow).toHaveLength(201); // g in 100..400 (301 rows) without the third whose en is 'a'
    expectSameRows(fast, slow);
    const [first] = JSON.parse(`[${documentOf(fast)}]`) as object[];
    expect(Object.keys(first)).toEqual(['Zed', 'db', 'g', 'js', 'vc']);
  });

  it('reads a table with a type it cannot render (UUID) on the row path, with the same bytes', async () => {
    const { fast, slow } = await bothPaths({ tables: { with_uuid: ['*'], every_type: ['g'] } });
    const uuidItems = fast.filter((item) => item.table === 'with_uuid');
    expect(uuidItems.some(isEncodedRows)).toBe(false);
    expect(documentOf(uuidItems)).toBe('{"id":1,"tag":"123e4567-e89b-12d3-a456-426614174000"},{"id":2,"tag":null}');
    expect(fast.filter((item) => item.table === 'every_type').every(isEncodedRows)).toBe(true);
    expect(documentOf(fast)).toBe(documentOf(slow));
  });

  it('streams a large table in bounded chunks of whole rows', async () => {
    const reader = connector(true);
    try {
      const items = await drain(await reader.queryStream({ configName: 'crm', tables: { big: ['filler', 'n'] } }, signal));
      let rows = 0;
      for (const item of items) {
        if (!isEncodedRows(item)) throw new Error('expected encoded rows');
        expect(item.encoded.length).toBeLessThan(90_000);
        expect(item.rowCount).toBeLessThanOrEqual(256);
        const parsed = JSON.parse(`[${Buffer.from(item.encoded).toString('utf8')}]`) as { n: number }[];
        expect(parsed).toHaveLength(item.rowCount);
        expect(parsed[0].n).toBe(rows + 1);
        rows += item.rowCount;
      }
      expect(rows).toBe(20_000);
    } finally {
      await reader.close();
    }
  });

  it('stops on abort mid-stream and on early close, and the connector stays usable', async () => {
    const reader = connector(true);
    try {
      const controller = new AbortController();
      const aborted = await reader.queryStream({ configName: 'crm', tables: { big: ['*'] } }, controller.signal);
      expect(await aborted.next()).not.toBeNull();
      controller.abort();
      await expect(aborted.next()).rejects.toMatchObject({ category: 'canceled' });
      await aborted.close();
      for (let round = 0; round < 3; round++) {
        const cursor = await reader.queryStream({ configName: 'crm', tables: { big: ['n'] } }, signal);
        expect(await cursor.next()).toMatchObject({ table: 'big' });
        await cursor.close();
      }
      const items = await drain(await reader.queryStream({ configName: 'crm', tables: { with_uuid: ['id'] } }, signal));
      expect(documentOf(items)).toBe('{"id":1},{"id":2}');
    } finally {
      await reader.close();
    }
  });

  it('reports the statement timeout as timeout, and the connector stays usable', async () => {
    const reader = connector(true, { queryMs: 300 });
    const locker = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: DATABASE });
    try {
      await reader.discoverSchema(signal);
      await locker.query('LOCK TABLES locked WRITE');
      const cursor = await reader.queryStream({ configName: 'crm', tables: { locked: ['id'] } }, signal);
      const error = await cursor.next().catch((e: unknown) => e);
      await cursor.close();
      expect(error).toMatchObject({ category: 'timeout', message: 'datasource query timed out' });
      await locker.query('UNLOCK TABLES');
      expect(documentOf(await drain(await reader.queryStream({ configName: 'crm', tables: { locked: ['id'] } }, signal)))).toBe('{"id":1}');
    } finally {
      await locker.end();
      await reader.close();
    }
  });
});
