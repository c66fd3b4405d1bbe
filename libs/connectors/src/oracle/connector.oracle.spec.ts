import { Readable } from 'node:stream';
import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import type { PoolAttributes } from 'oracledb';
import type { ConnectorOptions } from '../common/options';
import { drain } from '../testing/drain-cursor';
import { until } from '../testing/until';
import { OracleConnectorFactory } from './connector-factory.oracle';
import type { OracleConnectionLike, OracleDriver, OracleExecuteOptions, OraclePoolLike, OracleSessionSetup } from './oracledb-driver.oracle';
import { ORACLE_SESSION_SQL } from './statement.oracle';

const PASSWORD = 'Tiger-secret-9';

class FakeConnection implements OracleConnectionLike {
  callTimeout?: number;
  readonly executed: [string, readonly unknown[]][] = [];
  readonly streams: { sql: string; binds: readonly unknown[]; options: OracleExecuteOptions; stream: Readable }[] = [];
  breaks = 0;
  closedWith: { drop?: boolean } | undefined;
  hang = false;
  /** As before Oracle 12.2: the catalog has no `collation` column. */
  noCollationColumn = false;
  async execute(sql: string, binds: readonly unknown[]): Promise<{ rows?: readonly unknown[] }> {
    this.executed.push([sql, binds]);
    if (this.hang && sql.includes('user_tables')) return new Promise(() => undefined);
    if (sql === 'SELECT USER FROM DUAL') return { rows: [{ USER: 'HR' }] };
    if (sql.includes('nls_database_parameters')) return { rows: [{ VALUE: 'AL32UTF8' }] };
    if (sql.includes('user_cons_columns')) return { rows: [{ TABLE_NAME: 'Employees', COLUMN_NAME: 'Id' }] };
    if (sql.includes('collation')) {
      if (this.noCollationColumn) throw Object.assign(new Error('ORA-00904: "COLLATION": invalid identifier'), { code: 'ORA-00904' });
      return { rows: [{ TABLE_NAME: 'Employees', COLUMN_NAME: 'Code', COLLATION: 'USING_NLS_COMP' }] };
    }
    if (sql.includes('user_tables')) return { rows: [{ TABLE_NAME: 'Employees' }, { TABLE_NAME: 'BIN$1' }] };
    if (sql.includes('user_tab_columns')) {
      return {
        rows: [
          { TABLE_NAME: 'Employees', COLUMN_NAME: 'Id', DATA_TYPE: 'NUMBER', DATA_PRECISION: 19, DATA_SCALE: 0 },
          { TABLE_NAME: 'Employees', COLUMN_NAME: 'HIRED', DATA_TYPE: 'TIMESTAMP(6)', DATA_PRECISION: null, DATA_SCALE: 6 },
          { TABLE_NAME: 'Employees', COLUMN_NAME: 'Code', DATA_TYPE: 'VARCHAR2', DATA_PRECISION: null, DATA_SCALE: null, NULLABLE: 'N' },
        ],
      };
    }
    return { rows: [] };
  }
  queryStream(sql: string, binds: readonly unknown[], options: OracleExecuteOptions): Readable {
    const stream = new Readable({ objectMode: true, read: () => undefined });
    this.streams.push({ sql, binds, options, stream });
    return stream;
  }
  async break(): Promise<void> {
    this.breaks += 1;
  }
  async close(options?: { drop?: boolean }): Promise<void> {
    this.closedWith = options ?? {};
  }
}

class FakeDriver implements OracleDriver {
  attributes: PoolAttributes[] = [];
  connections: FakeConnection[] = [];
  poolClosed: number[] = [];
  getConnectionError: Error | undefined;
  hangDiscovery = false;
  noCollationColumn = false;
  setup: OracleSessionSetup | undefined;
  async createPool(attributes: PoolAttributes, setup: OracleSessionSetup): Promise<OraclePoolLike> {
    this.attributes.push(attributes);
    this.setup = setup;
    return {
      getConnection: async () => {
        if (this.getConnectionError) throw this.getConnectionError;
        const connection = new FakeConnection();
        connection.hang = this.hangDiscovery;
        connection.noCollationColumn = this.noCollationColumn;
        await setup(connection);
        this.connections.push(connection);
        return connection;
      },
      close: async (drainTime: number) => {
        this.poolClosed.push(drainTime);
      },
    };
  }
  get streams() {
    return this.connections.flatMap((c) => c.streams.map((s) => ({ ...s, connection: c })));
  }
}

const lookup = jest.fn(async () => [{ address: '10.9.8.7', family: 4 as const }]);
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: [] }, lookup };
const descriptor = (overrides: Partial<ConnectionDescriptor> = {}, attributes: object = {}, secrets: object = {}): ConnectionDescriptor => ({
  configName: 'hr',
  type: 'oracle',
  host: 'ora.example.com',
  port: 1521,
  databaseName: '',
  userName: 'hr',
  sslMode: '',
  hostAttributes: { metadata: { serviceName: 'ORCLPDB1' }, ...attributes },
  secrets: { password: PASSWORD, ...secrets },
  ...overrides,
});

describe('OracleConnector (fake driver: no Oracle on this machine)', () => {
  const signal = new AbortController().signal;
  beforeEach(() => lookup.mockClear());
  const setup = (overrides: Partial<ConnectionDescriptor> = {}, attributes: object = {}, secrets: object = {}) => {
    const driver = new FakeDriver();
    return { driver, sut: new OracleConnectorFactory(OPTIONS, driver).build(descriptor(overrides, attributes, secrets)) };
  };

  it('dials the looked-up address with Easy Connect and sets every new session to UTC', async () => {
    const { driver, sut } = setup();
    await sut.testConnection(signal);
    expect(driver.attributes[0]).toMatchObject({ user: 'hr', password: PASSWORD, connectString: '10.9.8.7:1521/ORCLPDB1', poolMax: 2 });
    expect(driver.connections[0].executed.map(([sql]) => sql)).toEqual([ORACLE_SESSION_SQL, 'SELECT 1 FROM DUAL']);
    expect(driver.connections[0].closedWith).toEqual({});
    await sut.close();
    expect(driver.poolClosed).toEqual([0]);
  });

  it.each([
    ['without metadata.serviceName', {}, { metadata: {} }, {}],
    ['in ssl mode skip-verify', { sslMode: 'skip-verify' }, {}, {}],
    ['with a CA but no client key', { sslMode: 'true' }, {}, { ssl: { ca: 'CA' } }],
  ])('fails the dial %s as a connect error, before any I/O', async (_label, overrides, attributes, secrets) => {
    const { driver, sut } = setup(overrides, attributes, secrets);
    const error = await sut.testConnection(signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'connect', message: 'failed to connect to datasource' });
    expect(lookup).not.toHaveBeenCalled();
    expect(driver.attributes).toEqual([]);
  });

  it('names the refused mode in the hidden cause only', async () => {
    const { sut } = setup({ sslMode: 'skip-verify' });
    const error = (await sut.testConnection(signal).catch((e: unknown) => e)) as EngineError;
    expect(String(error)).toBe('engine: [connect] failed to connect to datasource');
    expect((error.cause as Error).message).toBe('ssl mode skip-verify is not supported by the oracledb thin driver');
  });

  it('reports a failed login without the password, the descriptor or the driver text', async () => {
    const { driver, sut } = setup();
    driver.getConnectionError = new Error(`ORA-01017: invalid credential; user hr password ${PASSWORD} at 10.9.8.7:1521/ORCLPDB1`);
    const error = (await sut.testConnection(signal).catch((e: unknown) => e)) as EngineError;
    const rendered = [error.message, String(error), JSON.stringify(error), error.stack ?? ''].join('\n');
    for (const secret of [PASSWORD, 'ORA-01017', 'ORCLPDB1', '10.9.8.7']) expect(rendered).not.toContain(secret);
    expect(error.category).toBe('connect');
    expect(driver.poolClosed).toEqual([0]);
  });

  it('discovers the current user, upper-cases names and leaves system tables out', async () => {
    const { driver, sut } = setup();
    const snapshot = await sut.discoverSchema(signal);
    expect(snapshot.tables).toEqual([
      {
        name: 'EMPLOYEES',
        fields: ['CODE', 'HIRED', 'ID'],
        columns: [
          { name: 'CODE', kind: 'string', nativeType: 'VARCHAR2', nullable: false, ordering: 'binary' },
          { name: 'HIRED', kind: 'datetime', nativeType: 'TIMESTAMP(6)' },
          { name: 'ID', kind: 'integer', nativeType: 'NUMBER(19,0)' },
        ],
        primaryKey: ['ID'],
      },
    ]);
    expect(driver.connections.flatMap((c) => c.executed.map(([sql]) => sql))).toContain('SELECT USER FROM DUAL');
    await sut.close();
  });

  it('leaves VARCHAR2 ordering unknown when the catalog has no collation column (before 12.2)', async () => {
    const { driver, sut } = setup();
    driver.noCollationColumn = true;
    const snapshot = await sut.discoverSchema(signal);
    expect(snapshot.tables[0].columns?.[0]).toEqual({ name: 'CODE', kind: 'string', nativeType: 'VARCHAR2', nullable: false });
    expect(snapshot.tables[0].primaryKey).toEqual(['ID']);
    await sut.close();
  });

  it('declares incremental support and reads an incremental table after its position, in order, limited', async () => {
    const { driver, sut } = setup();
    expect(sut.supportsIncremental).toBe(true);
    const cursor = await sut.queryStream(
      {
        configName: 'hr',
        tables: { EMPLOYEES: ['CODE', 'ID'] },
        incremental: { EMPLOYEES: { cursorField: 'CODE', cursorKind: 'string', tieBreaker: 'ID', tieBreakerKind: 'integer', after: { value: 'b', key: 4n }, limit: 2 } },
      },
      signal,
    );
    const reading = drain(cursor);
    await until(() => driver.streams.length === 1);
    const [{ sql, binds, stream }] = driver.streams;
    expect(sql).toBe(
      'SELECT "Code" AS "CODE", "Id" AS "ID" FROM "HR"."Employees" "t" ' +
        'WHERE ("t"."Code" > :1 OR ("t"."Code" = :2 AND "t"."Id" > :3)) ORDER BY "t"."Code", "t"."Id" FETCH FIRST 2 ROWS ONLY',
    );
    expect(binds).toEqual(['b', 'b', 4n]);
    stream.push({ CODE: 'c', ID: 1n });
    stream.push(null);
    expect(await reading).toEqual([{ table: 'EMPLOYEES', row: { CODE: 'c', ID: 1n } }]);
    await sut.close();
  });

  it('binds the upper-cased owners of a scope', async () => {
    const { driver, sut } = setup({}, { schemaScope: ['hr', 'sales'] });
    await sut.discoverSchema(signal);
    const executed = driver.connections.flatMap((c) => c.executed);
    expect(executed.find(([sql]) => sql.includes('all_tables'))).toEqual([
      'SELECT owner, table_name FROM all_tables WHERE owner IN (:1, :2)',
      ['HR', 'SALES'],
    ]);
    await sut.close();
  });

  it('streams rows in fetches of 256 with the per-table call timeout, in the catalog spelling', async () => {
    const { driver, sut } = setup();
    const cursor = await sut.queryStream({ configName: 'hr', tables: { EMPLOYEES: ['HIRED', 'ID'] }, filters: { EMPLOYEES: { ID: { gt: [5] } } } }, signal);
    const reading = drain(cursor);
    await until(() => driver.streams.length === 1);
    const [{ sql, binds, options, stream, connection }] = driver.streams;
    expect(sql).toBe('SELECT TO_CHAR("HIRED", \'YYYY-MM-DD"T"HH24:MI:SS.FF9\') AS "HIRED", "Id" AS "ID" FROM "HR"."Employees" WHERE "Id" > :1');
    expect(binds).toEqual([5n]);
    expect(options).toMatchObject({ fetchArraySize: 256, prefetchRows: 256 });
    expect(connection.callTimeout).toBe(120_000);
    stream.push({ HIRED: '2024-01-31T10:00:00.500000000', ID: 9007199254740993n });
    stream.push(null);
    expect(await reading).toEqual([{ table: 'EMPLOYEES', row: { HIRED: '2024-01-31T10:00:00.5Z', ID: 9007199254740993n } }]);
    expect(connection.closedWith).toEqual({});
    await sut.close();
  });

  it('breaks the call and drops the session when the signal aborts mid-stream', async () => {
    const { driver, sut } = setup();
    const controller = new AbortController();
    const cursor = await sut.queryStream({ configName: 'hr', tables: { EMPLOYEES: ['ID'] } }, controller.signal);
    const first = cursor.next();
    await until(() => driver.streams.length === 1);
    driver.streams[0].stream.push({ ID: 1n });
    expect(await first).toEqual({ table: 'EMPLOYEES', row: { ID: 1n } });
    const pending = cursor.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ category: 'canceled' });
    const connection = driver.streams[0].connection;
    expect(connection.breaks).toBe(1);
    expect(connection.closedWith).toEqual({ drop: true });
    await sut.close();
  });

  it('closes the stream and drops the session on early close', async () => {
    const { driver, sut } = setup();
    const cursor = await sut.queryStream({ configName: 'hr', tables: { EMPLOYEES: ['ID'] } }, signal);
    const first = cursor.next();
    await until(() => driver.streams.length === 1);
    driver.streams[0].stream.push({ ID: 1n });
    await first;
    await cursor.close();
    expect(driver.streams[0].stream.destroyed).toBe(true);
    expect(driver.streams[0].connection.closedWith).toEqual({ drop: true });
    await sut.close();
  });

  it('breaks a discovery call when the signal aborts', async () => {
    const { driver, sut } = setup();
    await sut.testConnection(signal);
    driver.hangDiscovery = true;
    const controller = new AbortController();
    const discovering = sut.discoverSchema(controller.signal);
    await until(() => driver.connections.some((c) => c.executed.some(([sql]) => sql.includes('user_tables'))));
    controller.abort();
    await expect(discovering).rejects.toMatchObject({ category: 'canceled' });
    const session = driver.connections.find((c) => c.hang)!;
    expect(session.breaks).toBe(1);
    expect(session.closedWith).toEqual({ drop: true });
    await sut.close();
  });

  it('is closed idempotently, also without ever connecting', async () => {
    const { driver, sut } = setup();
    await sut.close();
    await sut.close();
    expect(driver.poolClosed).toEqual([]);
    await expect(sut.testConnection(signal)).rejects.toMatchObject({ category: 'connect' });
  });

  it.each(['require', 'VERIFY', 'verify-full'])('refuses ssl mode %j at build', (sslMode) => {
    expect(() => setup({ sslMode })).toThrow(expect.objectContaining({ category: 'validation', message: 'ssl mode is not supported for this datasource type' }));
  });
});
