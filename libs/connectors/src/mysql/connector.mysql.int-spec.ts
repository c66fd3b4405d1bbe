import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import {
  EngineError,
  JsonNumber,
  encodeCanonicalRow,
  type ConnectionDescriptor,
  type Connector,
  type QueryRequest,
} from '@fetcher/engine';
import { createConnection, type Connection } from 'mysql2/promise';
import type { ConnectorOptions } from '../common/options';
import { drainRows } from '../testing/drain-cursor';
import { MysqlConnectorFactory } from './connector-factory.mysql';
import { mysqlConnectorWithReadPath } from './testing/read-path';

const suffix = randomBytes(4).toString('hex');
const DATABASE = `fetcher_it_${suffix}`;
const USER = `fetcher_it_${suffix}`;
const PASSWORD = `S3cret-${randomBytes(6).toString('hex')}`;
const OPTIONS: ConnectorOptions = {
  hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32', '::1/128', 'localhost'] },
};

const descriptor = (overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor => ({
  configName: 'crm',
  type: 'MYSQL',
  host: '127.0.0.1',
  port: 3306,
  databaseName: DATABASE,
  userName: 'root',
  sslMode: '',
  ...overrides,
});

const FIXTURES = [
  `CREATE TABLE \`Customers\` (
     id BIGINT NOT NULL PRIMARY KEY, \`FullName\` VARCHAR(100) NOT NULL, email VARCHAR(200) NULL,
     balance DECIMAL(20,4) NULL, ratio DOUBLE NULL, score FLOAT NULL, active BIT(1) NULL, flags BIT(12) NULL,
     created_at DATETIME(6) NULL, seen_at TIMESTAMP(3) NULL, born DATE NULL, wake TIME NULL, avatar BLOB NULL,
     code VARBINARY(16) NULL, status ENUM('new','vip') NULL, profile JSON NULL, tiny TINYINT NULL, yr YEAR NULL,
     width INT NULL, valid_until DATE NULL, big_unsigned BIGINT UNSIGNED NULL
   ) CHARACTER SET utf8mb4`,
  `INSERT INTO \`Customers\` VALUES
     (9007199254740993, 'Zoë 🚀 Ünïcode', 'zoe@example.com', 12345678901234.5678, 0.1, 1.5, b'1', b'101000000001',
      '2024-01-31 23:59:59.999999', '2024-01-31 10:00:00.120', '1990-05-17', '07:30:00', X'00FF10', X'DEADBEEF', 'vip',
      '{"n": 12345678901234567890, "f": 1.10, "s": "x", "nested": {"b": [1, 2.50]}}', -5, 2024, 640, '2030-12-31',
      18446744073709551615),
     (2, 'Bob', NULL, -0.5, NULL, NULL, b'0', NULL, '2024-02-01 00:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      NULL, NULL, NULL, NULL, NULL),
     (-9223372036854775808, 'Ann', NULL, 0, 2.25, NULL, b'1', b'000000000000', '2024-01-15 08:00:00.5', NULL, '2024-01-31',
      NULL, NULL, NULL, 'new', '[]', NULL, NULL, 10, '2024-01-01', 0)`,
  'CREATE TABLE `odd``name` (`sel``ect` INT NOT NULL, `Mixed Case` VARCHAR(20) NULL)',
  "INSERT INTO `odd``name` VALUES (1, 'one'), (2, NULL)",
  'CREATE TABLE empty_table (id INT NOT NULL)',
  'CREATE TABLE many (n INT NOT NULL PRIMARY KEY, label VARCHAR(40) NOT NULL)',
  "INSERT INTO many SELECT seq, CONCAT('row-', seq) FROM seq_1_to_5000",
  'CREATE VIEW customer_names AS SELECT `FullName` FROM `Customers`',
  'CREATE TABLE zoned (ts TIMESTAMP(6) NULL)',
  // About 16 MB: more than loopback socket buffers hold, so a read is still streaming when cut.
  'CREATE TABLE bulky (n INT NOT NULL PRIMARY KEY, filler VARCHAR(1000) NOT NULL)',
  "INSERT INTO bulky SELECT seq, REPEAT('x', 800) FROM seq_1_to_20000",
  'CREATE TABLE protos (`__proto__` VARCHAR(20) NULL, `constructor` INT NULL, `__lookupGetter__` JSON NULL)',
  `INSERT INTO protos VALUES ('polluted?', 7, '{"a": 1}')`,
  // Written by a session five hours east of UTC: the connector's UTC session must read 00:00.
  "SET time_zone = '+05:00'",
  "INSERT INTO zoned VALUES ('2024-01-01 05:00:00.123456')",
  "SET time_zone = '+00:00'",
];

const ALL_CUSTOMER_FIELDS = [
  'FullName', 'active', 'avatar', 'balance', 'big_unsigned', 'born', 'code', 'created_at', 'email', 'flags', 'id',
  'profile', 'ratio', 'score', 'seen_at', 'status', 'tiny', 'valid_until', 'wake', 'width', 'yr',
];

/** A loopback TCP proxy to `port` whose connections a test can cut, as a network failure would. */
async function tcpProxy(port: number): Promise<{ port: number; breakAll(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    keep(client);
    keep(upstream);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const breakAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    breakAll,
    close: () => {
      breakAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('MysqlConnector against a real MariaDB', () => {
  let admin: Connection;
  const factory = new MysqlConnectorFactory(OPTIONS);
  let sut: Connector;
  const signal = new AbortController().signal;

  const query = async (request: Omit<QueryRequest, 'configName'>) =>
    drainRows(await sut.queryStream({ configName: 'crm', ...request }, signal));
  const customerIds = async (filters: Record<string, unknown>) =>
    (await query({ tables: { Customers: ['id'] }, filters: { Customers: filters as never } })).map((r) => r.row.id);

  beforeAll(async () => {
    admin = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', charset: 'utf8mb4' });
    await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.query(`USE \`${DATABASE}\``);
    for (const sql of FIXTURES) await admin.query(sql);
    for (const host of ['localhost', '127.0.0.1']) {
      await admin.query(`CREATE USER '${USER}'@'${host}' IDENTIFIED BY '${PASSWORD}'`);
      await admin.query(`GRANT SELECT ON \`${DATABASE}\`.* TO '${USER}'@'${host}'`);
    }
    // The row path: these cases check the values it builds; server-json-path.mysql.int-spec.ts holds the other path to it.
    sut = mysqlConnectorWithReadPath(descriptor(), OPTIONS, false);
    await sut.testConnection(signal);
  });

  afterAll(async () => {
    await sut?.close();
    if (admin) {
      for (const host of ['localhost', '127.0.0.1']) await admin.query(`DROP USER IF EXISTS '${USER}'@'${host}'`);
      await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
      await admin.end();
    }
  });

  describe('discovery', () => {
    it('lists the base tables of the database, sorted, without views', async () => {
      const snapshot = await sut.discoverSchema(signal);
      expect(snapshot.configName).toBe('crm');
      expect(snapshot.tables.map((t) => t.name)).toEqual(['Customers', 'bulky', 'empty_table', 'many', 'odd`name', 'protos', 'zoned']);
    });

    it('reports sorted fields with their kinds, including MariaDB JSON behind a json_valid check', async () => {
      const snapshot = await sut.discoverSchema(signal);
      const customers = snapshot.tables.find((t) => t.name === 'Customers')!;
      expect(customers.fields).toEqual(ALL_CUSTOMER_FIELDS);
      const kinds = Object.fromEntries(customers.columns!.map((c) => [c.name, c.kind]));
      expect(kinds).toEqual({
        FullName: 'string', active: 'boolean', avatar: 'binary', balance: 'decimal', big_unsigned: 'integer',
        born: 'date', code: 'binary', created_at: 'datetime', email: 'string', flags: 'integer', id: 'integer',
        profile: 'json', ratio: 'float', score: 'float', seen_at: 'datetime', status: 'string', tiny: 'integer',
        valid_until: 'date', wake: 'time', width: 'integer', yr: 'integer',
      });
      expect(customers.columns!.find((c) => c.name === 'profile')!.nativeType).toBe('longtext');
      expect(customers.columns!.find((c) => c.name === 'big_unsigned')!.nativeType).toBe('bigint(20) unsigned');
    });
  });

  describe('extraction', () => {
    it('reads columns named __proto__ and other object internals as plain keys', async () => {
      const rows = await query({ tables: { protos: ['__lookupGetter__', '__proto__', 'constructor'] } });
      expect(rows).toHaveLength(1);
      const row = rows[0].row;
      expect(Object.keys(row)).toEqual(['__lookupGetter__', '__proto__', 'constructor']);
      expect(row.__proto__).toBe('polluted?');
      expect(row.constructor).toBe(7);
      expect(encodeCanonicalRow(row)).toBe('{"__lookupGetter__":{"a":1},"__proto__":"polluted?","constructor":7}');
    });

    it('returns every value typed exactly', async () => {
      const rows = await query({ tables: { Customers: ALL_CUSTOMER_FIELDS } });
      expect(rows.map((r) => r.table)).toEqual(['Customers', 'Customers', 'Customers']);
      const byId = new Map(rows.map((r) => [(r.row.id as bigint).toString(), r.row]));
      expect(byId.get('9007199254740993')).toEqual({
        id: 9007199254740993n,
        FullName: 'Zoë 🚀 Ünïcode',
        email: 'zoe@example.com',
        balance: '12345678901234.5678',
        ratio: 0.1,
        score: 1.5,
        active: true,
        flags: 2561n,
        created_at: '2024-01-31T23:59:59.999999Z',
        seen_at: '2024-01-31T10:00:00.12Z',
        born: '1990-05-17T00:00:00Z',
        wake: '07:30:00',
        avatar: new Uint8Array([0x00, 0xff, 0x10]),
        code: new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
        status: 'vip',
        profile: {
          n: new JsonNumber('12345678901234567890'),
          f: new JsonNumber('1.10'),
          s: 'x',
          nested: { b: [new JsonNumber('1'), new JsonNumber('2.50')] },
        },
        tiny: -5,
        yr: 2024,
        width: 640,
        valid_until: '2030-12-31T00:00:00Z',
        big_unsigned: 18446744073709551615n,
      });
      expect(byId.get('2')).toMatchObject({ email: null, balance: '-0.5000', active: false, flags: null, profile: null, seen_at: null });
      expect(byId.get('-9223372036854775808')).toMatchObject({
        id: -9223372036854775808n,
        flags: 0n,
        created_at: '2024-01-15T08:00:00.5Z',
        balance: '0.0000',
        profile: [],
        big_unsigned: 0n,
      });
    });

    it('encodes a row canonically with exact numbers, base64 bytes and the JSON column embedded', async () => {
      const [row] = await query({
        tables: { Customers: ['avatar', 'balance', 'id', 'profile'] },
        filters: { Customers: { id: { eq: ['9007199254740993'] } } },
      });
      expect(encodeCanonicalRow(row.row)).toBe(
        '{"avatar":"AP8Q","balance":"12345678901234.5678","id":9007199254740993,' +
          '"profile":{"f":1.10,"n":12345678901234567890,"nested":{"b":[1,2.50]},"s":"x"}}',
      );
    });

    it('reads TIMESTAMP values in UTC, whatever zone wrote them', async () => {
      expect(await query({ tables: { zoned: ['ts'] } })).toEqual([{ table: 'zoned', row: { ts: '2024-01-01T00:00:00.123456Z' } }]);
    });

    it('reads only the requested fields', async () => {
      const rows = await query({ tables: { Customers: ['FullName'] } });
      expect(rows.map((r) => Object.keys(r.row))).toEqual([['FullName'], ['FullName'], ['FullName']]);
      expect(rows.map((r) => r.row.FullName).sort()).toEqual(['Ann', 'Bob', 'Zoë 🚀 Ünïcode']);
    });

    it('quotes names with backticks, spaces and mixed case', async () => {
      const rows = await query({ tables: { 'odd`name': ['Mixed Case', 'sel`ect'] } });
      expect(rows.map((r) => r.row)).toEqual([
        { 'sel`ect': 1, 'Mixed Case': 'one' },
        { 'sel`ect': 2, 'Mixed Case': null },
      ]);
    });

    it('reads tables in ascending key order, an empty table giving no rows', async () => {
      const rows = await query({
        tables: { 'odd`name': ['sel`ect'], empty_table: ['id'], Customers: ['id'] },
      });
      expect([...new Set(rows.map((r) => r.table))]).toEqual(['Customers', 'odd`name']);
    });

    it('streams a large table completely', async () => {
      const rows = await query({ tables: { many: ['label', 'n'] } });
      expect(rows).toHaveLength(5000);
      expect(rows[4999].row).toEqual({ label: 'row-5000', n: 5000 });
    });

    it('refuses a field the snapshot does not have', async () => {
      await expect(sut.queryStream({ configName: 'crm', tables: { Customers: ['nope'] } }, signal)).rejects.toMatchObject({
        category: 'validation',
      });
    });
  });

  describe('filters', () => {
    const sorted = (values: unknown[]) => values.map(String).sort();

    it('eq with one value, with null and with several values', async () => {
      expect(await customerIds({ FullName: { eq: ['Bob'] } })).toEqual([2n]);
      expect(sorted(await customerIds({ email: { eq: [null] } }))).toEqual(['-9223372036854775808', '2']);
      expect(sorted(await customerIds({ id: { eq: ['9007199254740993', 2] } }))).toEqual(['2', '9007199254740993']);
    });

    it('compares 64-bit integers exactly beyond 2^53', async () => {
      expect(await customerIds({ id: { eq: ['9007199254740992'] } })).toEqual([]);
      expect(await customerIds({ id: { gt: ['9007199254740992'] } })).toEqual([9007199254740993n]);
    });

    it('gt, gte, lt and lte', async () => {
      expect(sorted(await customerIds({ balance: { gt: ['0'] } }))).toEqual(['9007199254740993']);
      expect(sorted(await customerIds({ balance: { gte: ['0'] } }))).toEqual(['-9223372036854775808', '9007199254740993']);
      expect(sorted(await customerIds({ balance: { lt: [0] } }))).toEqual(['2']);
      expect(sorted(await customerIds({ balance: { lte: ['-0.5'] } }))).toEqual(['2']);
    });

    it('between with a date-only end covers that whole day on a DATETIME(6) column', async () => {
      expect(sorted(await customerIds({ created_at: { between: ['2024-01-01', '2024-01-31'] } }))).toEqual([
        '-9223372036854775808',
        '9007199254740993',
      ]);
    });

    it('between with a date-time end stays inclusive of that instant only', async () => {
      expect(sorted(await customerIds({ created_at: { between: ['2024-01-01', '2024-01-31T23:59:59Z'] } }))).toEqual([
        '-9223372036854775808',
      ]);
    });

    it('between on a DATE column keeps the end as it is', async () => {
      expect(sorted(await customerIds({ born: { between: ['1990-05-17', '2024-01-31'] } }))).toEqual([
        '-9223372036854775808',
        '9007199254740993',
      ]);
    });

    it('in and nin', async () => {
      expect(sorted(await customerIds({ status: { in: ['vip', 'new'] } }))).toEqual(['-9223372036854775808', '9007199254740993']);
      expect(sorted(await customerIds({ status: { nin: ['vip'] } }))).toEqual(['-9223372036854775808']);
    });

    it('ne with one value, with null and with several values', async () => {
      expect(sorted(await customerIds({ FullName: { ne: ['Bob'] } }))).toEqual(['-9223372036854775808', '9007199254740993']);
      expect(sorted(await customerIds({ email: { ne: [null] } }))).toEqual(['9007199254740993']);
      expect(sorted(await customerIds({ FullName: { ne: ['Bob', 'Ann'] } }))).toEqual(['9007199254740993']);
    });

    it('like, with unicode and the collation deciding case', async () => {
      expect(await customerIds({ FullName: { like: ['%🚀%'] } })).toEqual([9007199254740993n]);
      expect(await customerIds({ FullName: { like: ['bo%'] } })).toEqual([2n]);
    });

    it('binds booleans, binary and hostile strings as values', async () => {
      expect(sorted(await customerIds({ active: { eq: [true] } }))).toEqual(['-9223372036854775808', '9007199254740993']);
      expect(await customerIds({ code: { eq: ['3q2+7w=='] } })).toEqual([9007199254740993n]);
      expect(await customerIds({ FullName: { eq: ["x' OR '1'='1"] } })).toEqual([]);
      expect(await customerIds({ FullName: { eq: ['\\'] } })).toEqual([]);
    });

    it('refuses like on a non-text column and gt with two values', async () => {
      const like = sut.queryStream({ configName: 'crm', tables: { Customers: ['id'] }, filters: { Customers: { id: { like: ['1%'] } } } }, signal);
      await expect(like).rejects.toThrow(expect.objectContaining({ category: 'validation', message: 'like requires a text column: crm.Customers.id' }));
      const gt = sut.queryStream({ configName: 'crm', tables: { Customers: ['id'] }, filters: { Customers: { id: { gt: [1, 2] } } } }, signal);
      await expect(gt).rejects.toThrow(expect.objectContaining({ category: 'validation', message: 'filter operator requires exactly one value: crm.Customers.id' }));
    });
  });

  describe('cancellation and early close', () => {
    it('rejects next() once the signal aborts mid-stream, and the connector stays usable', async () => {
      const controller = new AbortController();
      const cursor = await sut.queryStream({ configName: 'crm', tables: { many: ['n'] } }, controller.signal);
      for (let i = 0; i < 10; i++) expect(await cursor.next()).not.toBeNull();
      controller.abort();
      await expect(cursor.next()).rejects.toMatchObject({ category: 'canceled' });
      await cursor.close();
      expect(await query({ tables: { empty_table: ['id'] } })).toEqual([]);
    });

    it('releases the stream on early close, again and again, without exhausting the pool of two', async () => {
      for (let round = 0; round < 4; round++) {
        const cursor = await sut.queryStream({ configName: 'crm', tables: { many: ['n'] } }, signal);
        expect(await cursor.next()).toMatchObject({ table: 'many' });
        await cursor.close();
        await cursor.close();
        expect(await cursor.next()).toBeNull();
      }
      expect(await query({ tables: { many: ['n'] } })).toHaveLength(5000);
    });
  });

  describe('dialling', () => {
    it('connects to the checked address of a hostname (pinning through the lookup)', async () => {
      const lookup = jest.fn(async () => [{ address: '127.0.0.1', family: 4 as const }]);
      const pinned = new MysqlConnectorFactory({
        hostSafety: { allowPrivate: false, allowlist: ['127.0.0.1/32'] },
        lookup,
      }).build(descriptor({ host: 'mariadb.fetcher.test' }));
      try {
        await pinned.testConnection(signal);
        expect((await pinned.discoverSchema(signal)).tables.length).toBe(7);
        expect(lookup).toHaveBeenCalledTimes(1);
        expect(lookup).toHaveBeenCalledWith('mariadb.fetcher.test');
      } finally {
        await pinned.close();
      }
    });

    it('refuses loopback without an allowlist, before any connection', async () => {
      const guarded = new MysqlConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: [] } }).build(descriptor());
      try {
        await expect(guarded.testConnection(signal)).rejects.toMatchObject({ category: 'validation', message: 'datasource host is not allowed' });
      } finally {
        await guarded.close();
      }
    });

    it('falls back to plain for ssl mode preferred when the server has no TLS', async () => {
      const preferred = factory.build(descriptor({ sslMode: 'preferred' }));
      try {
        await preferred.testConnection(signal);
        expect(await drainRows(await preferred.queryStream({ configName: 'crm', tables: { empty_table: ['id'] } }, signal))).toEqual([]);
      } finally {
        await preferred.close();
      }
    });

    it.each(['true', 'skip-verify'])('fails to connect in ssl mode %s when the server has no TLS', async (sslMode) => {
      const tls = factory.build(descriptor({ sslMode }));
      try {
        await expect(tls.testConnection(signal)).rejects.toMatchObject({ category: 'connect', message: 'failed to connect to datasource' });
      } finally {
        await tls.close();
      }
    });

    it('connects with a password, and a wrong one leaks neither password, DSN nor driver text', async () => {
      const good = factory.build(descriptor({ userName: USER, secrets: { password: PASSWORD } }));
      try {
        await good.testConnection(signal);
      } finally {
        await good.close();
      }
      const wrongPassword = `${PASSWORD}-wrong`;
      const bad = factory.build(descriptor({ userName: USER, secrets: { password: wrongPassword } }));
      let error: unknown;
      try {
        await bad.testConnection(signal);
      } catch (caught) {
        error = caught;
      } finally {
        await bad.close();
      }
      expect(error).toBeInstanceOf(EngineError);
      const engineError = error as EngineError;
      expect(engineError.category).toBe('connect');
      expect(engineError.message).toBe('failed to connect to datasource');
      const rendered = [engineError.message, String(engineError), JSON.stringify(engineError), engineError.stack ?? ''].join('\n');
      for (const secret of [wrongPassword, PASSWORD, USER, 'Access denied', '127.0.0.1', 'mysql://']) {
        expect(rendered).not.toContain(secret);
      }
      // The driver's text is kept only as the hidden cause.
      expect(String((engineError.cause as Error).message)).toContain('Access denied');
    });

    it('fails a read at once when the connection breaks mid-stream, instead of idling until the query timeout', async () => {
      const proxy = await tcpProxy(3306);
      // A query budget far beyond the test's own limit: only an immediate failure can pass.
      const broken = new MysqlConnectorFactory({ ...OPTIONS, timeouts: { queryMs: 600_000 } }).build(descriptor({ port: proxy.port }));
      try {
        const cursor = await broken.queryStream({ configName: 'crm', tables: { bulky: ['filler', 'n'] } }, signal);
        expect(await cursor.next()).not.toBeNull();
        proxy.breakAll();
        let item = await cursor.next().catch((error: unknown) => error);
        while (item !== null && !(item instanceof Error)) item = await cursor.next().catch((error: unknown) => error);
        await cursor.close();
        expect(item).toBeInstanceOf(Error);
      } finally {
        await broken.close();
        await proxy.close();
      }
    });

    it('is closed idempotently, also without ever connecting', async () => {
      const unused = factory.build(descriptor());
      await unused.close();
      await unused.close();
      await expect(unused.testConnection(signal)).rejects.toMatchObject({ category: 'connect' });
    });
  });
});
