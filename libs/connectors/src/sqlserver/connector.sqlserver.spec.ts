import { Readable } from 'node:stream';
import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import type { ISqlType, config as MssqlConfig } from 'mssql';
import type { ConnectorOptions } from '../common/options';
import { drain } from '../testing/drain-cursor';
import { until } from '../testing/until';
import { SqlServerConnectorFactory } from './connector-factory.sqlserver';
import type { MssqlPoolLike, MssqlRequestLike, SqlServerDriver } from './mssql-driver.sqlserver';

const PASSWORD = 'Pa55-secret-word';
const TABLES = [
  { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers' },
  { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Orders' },
];
const COLUMNS = [
  { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers', COLUMN_NAME: 'Id', DATA_TYPE: 'bigint' },
  { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers', COLUMN_NAME: 'Balance', DATA_TYPE: 'money' },
  { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers', COLUMN_NAME: 'Seen', DATA_TYPE: 'datetimeoffset' },
  { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Orders', COLUMN_NAME: 'No', DATA_TYPE: 'int' },
];

class FakeRequest implements MssqlRequestLike {
  readonly inputs: [string, ISqlType, unknown][] = [];
  sql = '';
  canceled = false;
  readonly stream = new Readable({ objectMode: true, read: () => undefined });
  constructor(
    readonly timeoutMs: number | undefined,
    private readonly driver: FakeDriver,
  ) {}
  input(name: string, type: ISqlType, value: unknown): void {
    this.inputs.push([name, type, value]);
  }
  query(sql: string): Promise<{ recordset?: readonly unknown[] }> {
    this.sql = sql;
    return this.driver.answer(this);
  }
  streamed = false;
  toReadableStream(): Readable {
    this.streamed = true;
    return this.stream;
  }
  cancel(): void {
    this.canceled = true;
    // As mssql: a streaming request reports the cancel on its stream, a buffered one through its promise.
    if (this.streamed) this.stream.destroy(Object.assign(new Error('Canceled.'), { code: 'ECANCEL' }));
  }
}

class FakeDriver implements SqlServerDriver {
  configs: MssqlConfig[] = [];
  requests: FakeRequest[] = [];
  closed = 0;
  connectError: Error | undefined;
  hang = false;
  createPool(config: MssqlConfig): MssqlPoolLike {
    this.configs.push(config);
    return {
      connect: () => (this.connectError ? Promise.reject(this.connectError) : Promise.resolve()),
      close: async () => {
        this.closed += 1;
      },
      on: () => undefined,
    };
  }
  createRequest(_pool: MssqlPoolLike, timeoutMs?: number): MssqlRequestLike {
    const request = new FakeRequest(timeoutMs, this);
    this.requests.push(request);
    return request;
  }
  answer(request: FakeRequest): Promise<{ recordset?: readonly unknown[] }> {
    if (request.sql.startsWith('SELECT 1')) return Promise.resolve({ recordset: [{ ok: 1 }] });
    if (request.sql.includes('INFORMATION_SCHEMA.TABLES')) {
      return this.hang ? new Promise(() => undefined) : Promise.resolve({ recordset: TABLES });
    }
    if (request.sql.includes('INFORMATION_SCHEMA.COLUMNS')) return Promise.resolve({ recordset: COLUMNS });
    if (request.sql.includes('KEY_COLUMN_USAGE')) return Promise.resolve({ recordset: [{ TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers', COLUMN_NAME: 'Id' }] });
    return Promise.resolve({}); // stream mode: rows go through the stream
  }
  get streaming(): FakeRequest[] {
    return this.requests.filter((r) => r.sql.startsWith('SELECT [') || r.sql.startsWith('SELECT CONVERT'));
  }
}

const OPTIONS: ConnectorOptions = {
  hostSafety: { allowPrivate: true, allowlist: [] },
  lookup: async () => [{ address: '10.20.30.40', family: 4 }],
};
const descriptor = (overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor => ({
  configName: 'erp',
  type: 'sql_server',
  host: 'sql.example.com',
  port: 1433,
  databaseName: 'Erp',
  userName: 'reader',
  sslMode: 'strict',
  hostAttributes: { schemaScope: ['dbo', 'Sales'] },
  secrets: { password: PASSWORD },
  ...overrides,
});

describe('SqlServerConnector (fake driver: no SQL Server on this machine)', () => {
  const signal = new AbortController().signal;
  const setup = (overrides: Partial<ConnectionDescriptor> = {}) => {
    const driver = new FakeDriver();
    return { driver, sut: new SqlServerConnectorFactory(OPTIONS, driver).build(descriptor(overrides)) };
  };

  it('dials the looked-up address with the hostname kept for TLS, then pings', async () => {
    const { driver, sut } = setup();
    await sut.testConnection(signal);
    expect(driver.configs).toHaveLength(1);
    expect(driver.configs[0]).toMatchObject({
      server: '10.20.30.40',
      password: PASSWORD,
      options: { serverName: 'sql.example.com', encrypt: 'strict', trustServerCertificate: false },
    });
    expect(driver.requests.map((r) => r.sql)).toEqual(['SELECT 1 AS ok']);
    await sut.close();
  });

  it('reports a failed login as a connect error that carries none of its text', async () => {
    const { driver, sut } = setup();
    driver.connectError = Object.assign(new Error(`Login failed for user 'reader' password ${PASSWORD} at sql.example.com`), {
      code: 'ELOGIN',
    });
    const error = await sut.testConnection(signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    const rendered = [(error as EngineError).message, String(error), JSON.stringify(error)].join('\n');
    expect(rendered).toBe(
      'failed to connect to datasource\nengine: [connect] failed to connect to datasource\n' +
        '{"name":"EngineError","category":"connect","message":"failed to connect to datasource","reason":"authentication"}',
    );
    expect(driver.closed).toBe(1);
    await sut.close();
  });

  it('refuses a denied host before creating any pool', async () => {
    const driver = new FakeDriver();
    const sut = new SqlServerConnectorFactory({ hostSafety: { allowPrivate: false, allowlist: [] }, lookup: OPTIONS.lookup }, driver).build(
      descriptor(),
    );
    await expect(sut.testConnection(signal)).rejects.toMatchObject({ category: 'validation', message: 'datasource host is not allowed' });
    expect(driver.configs).toEqual([]);
  });

  it('discovers the scoped schemas with bound names', async () => {
    const { driver, sut } = setup();
    const snapshot = await sut.discoverSchema(signal);
    expect(snapshot).toEqual({
      configName: 'erp',
      tables: [
        {
          name: 'Customers',
          fields: ['Balance', 'Id', 'Seen'],
          columns: [
            { name: 'Balance', kind: 'decimal', nativeType: 'money' },
            { name: 'Id', kind: 'integer', nativeType: 'bigint' },
            { name: 'Seen', kind: 'datetime', nativeType: 'datetimeoffset' },
          ],
          primaryKey: ['Id'],
        },
        { name: 'Sales.Orders', fields: ['No'], columns: [{ name: 'No', kind: 'integer', nativeType: 'int' }] },
      ],
    });
    const tablesRequest = driver.requests.find((r) => r.sql.includes('INFORMATION_SCHEMA.TABLES'))!;
    expect(tablesRequest.inputs.map(([name, , value]) => [name, value])).toEqual([
      ['p1', 'dbo'],
      ['p2', 'Sales'],
    ]);
    await sut.close();
  });

  it('declares incremental support and reads an incremental table after its position, in order, limited', async () => {
    const { driver, sut } = setup();
    expect(sut.supportsIncremental).toBe(true);
    const cursor = await sut.queryStream(
      {
        configName: 'erp',
        tables: { Customers: ['Id', 'Seen'] },
        incremental: {
          Customers: { cursorField: 'Seen', cursorKind: 'datetime', tieBreaker: 'Id', tieBreakerKind: 'integer', after: { value: '2024-01-31T22:00:00.123Z', key: 41n }, limit: 2 },
        },
      },
      signal,
    );
    const reading = drain(cursor);
    await until(() => driver.streaming.length === 1);
    const [customers] = driver.streaming;
    expect(customers.sql).toBe(
      'SELECT [Id], CONVERT(varchar(40), [Seen], 127) AS [Seen] FROM [dbo].[Customers] AS [t] ' +
        'WHERE ([t].[Seen] > @p1 OR ([t].[Seen] = @p1 AND [t].[Id] > @p2)) ORDER BY [t].[Seen], [t].[Id] OFFSET 0 ROWS FETCH NEXT 2 ROWS ONLY',
    );
    expect(customers.inputs.map(([name, , value]) => [name, value])).toEqual([
      ['p1', '2024-01-31T22:00:00.123'],
      ['p2', 41n],
    ]);
    expect(customers.timeoutMs).toBe(120_000);
    customers.stream.push({ Id: '42', Seen: '2024-01-31T22:00:00.1230000Z' });
    customers.stream.push(null);
    expect(await reading).toEqual([{ table: 'Customers', row: { Id: 42n, Seen: '2024-01-31T22:00:00.123Z' } }]);
    await sut.close();
  });

  it('streams converted rows table by table with the per-table timeout', async () => {
    const { driver, sut } = setup();
    const cursor = await sut.queryStream(
      { configName: 'erp', tables: { 'Sales.Orders': ['No'], Customers: ['Balance', 'Id', 'Seen'] }, filters: { Customers: { Id: { gte: [1] } } } },
      signal,
    );
    const reading = drain(cursor);
    // The first table (Customers, filtered) opens first; feed it, then the second.
    await until(() => driver.streaming.length === 1);
    const customers = driver.streaming[0];
    expect(customers.sql).toBe(
      'SELECT CONVERT(varchar(64), [Balance], 2) AS [Balance], [Id], CONVERT(varchar(40), [Seen], 127) AS [Seen] ' +
        'FROM [dbo].[Customers] WHERE [Id] >= @p1',
    );
    expect(customers.timeoutMs).toBe(120_000);
    customers.stream.push({ Balance: '2500.0000', Id: '9007199254740993', Seen: '2024-01-31T22:00:00.1230000Z' });
    customers.stream.push(null);
    await until(() => driver.streaming.length === 2);
    const orders = driver.streaming[1];
    expect(orders.sql).toBe('SELECT [No] FROM [Sales].[Orders]');
    expect(orders.timeoutMs).toBe(60_000);
    orders.stream.push({ No: 1 });
    orders.stream.push(null);
    expect(await reading).toEqual([
      { table: 'Customers', row: { Balance: '2500.0000', Id: 9007199254740993n, Seen: '2024-01-31T22:00:00.123Z' } },
      { table: 'Sales.Orders', row: { No: 1 } },
    ]);
    await sut.close();
  });

  it('cancels the request when the signal aborts mid-stream', async () => {
    const { driver, sut } = setup();
    const controller = new AbortController();
    const cursor = await sut.queryStream({ configName: 'erp', tables: { Customers: ['Id'] } }, controller.signal);
    const first = cursor.next();
    await until(() => driver.streaming.length === 1);
    driver.streaming[0].stream.push({ Id: '1' });
    expect(await first).toEqual({ table: 'Customers', row: { Id: 1n } });
    const pending = cursor.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ category: 'canceled' });
    expect(driver.streaming[0].canceled).toBe(true);
    await cursor.close();
    await sut.close();
  });

  it('cancels the request on early close', async () => {
    const { driver, sut } = setup();
    const cursor = await sut.queryStream({ configName: 'erp', tables: { Customers: ['Id'] } }, signal);
    const first = cursor.next();
    await until(() => driver.streaming.length === 1);
    driver.streaming[0].stream.push({ Id: '1' });
    await first;
    await cursor.close();
    expect(driver.streaming[0].canceled).toBe(true);
    expect(await cursor.next()).toBeNull();
    await sut.close();
  });

  it('cancels a discovery query when the signal aborts', async () => {
    const { driver, sut } = setup();
    await sut.testConnection(signal);
    driver.hang = true;
    const controller = new AbortController();
    const discovering = sut.discoverSchema(controller.signal);
    await until(() => driver.requests.some((r) => r.sql.includes('INFORMATION_SCHEMA.TABLES')));
    controller.abort();
    await expect(discovering).rejects.toMatchObject({ category: 'canceled' });
    expect(driver.requests.find((r) => r.sql.includes('INFORMATION_SCHEMA.TABLES'))!.canceled).toBe(true);
    await sut.close();
  });

  it('closes the pool once, and is safe to close without connecting', async () => {
    const { driver, sut } = setup();
    await sut.testConnection(signal);
    await sut.close();
    await sut.close();
    expect(driver.closed).toBe(1);
    const { sut: unused } = setup();
    await expect(unused.close()).resolves.toBeUndefined();
  });

  it.each(['require', 'TRUE', 'verify-full'])('refuses ssl mode %j at build', (sslMode) => {
    expect(() => setup({ sslMode })).toThrow(expect.objectContaining({ category: 'validation', message: 'ssl mode is not supported for this datasource type' }));
  });

  it.each([0, 65_536, 1.5])('refuses port %p at build', (port) => {
    expect(() => setup({ port })).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource port is invalid' }));
  });
});
