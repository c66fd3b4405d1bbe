/**
 * The SQL Server connector. One mssql pool of at most two
 * connections, opened by testConnection; discovery is cached and reused by queryStream; rows
 * stream through `request.toReadableStream()`, which pauses the request when the buffer is full.
 */
import type { ConnectReason } from '@fetcher/engine';
import { TYPES } from 'mssql';
import { queryTimeoutMs } from '../common/timeouts';
import { raceAbort, statementTimeout } from '../common/abort';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { driverErrorCode } from '../sql/driver-error-code';
import { PooledSqlConnector } from '../sql/pooled-sql-connector';
import { ReadableTableRows } from '../sql/readable-rows';
import type { SqlConnectorConfigWithDriver } from '../sql/sql-connector-config';
import { tableItems, type TableSource } from '../common/table-cursor';
import { sqlServerPoolConfig } from './connection-options.sqlserver';
import { pinnedTediousConnector } from './pinned-connector.sqlserver';
import { buildSqlServerSchema, sqlServerDiscovery, type SqlServerColumnRow, type SqlServerKeyRow, type SqlServerTableRow } from './discovery.sqlserver';
import { sqlServerKeyset } from './incremental-query.sqlserver';
import { MSSQL_DRIVER, type MssqlPoolLike, type MssqlRequestLike, type SqlServerDriver } from './mssql-driver.sqlserver';
import { sqlServerStatement } from './statement.sqlserver';
import { convertRow, sqlServerConverter } from './value-mapping.sqlserver';
import { sqlServerConnectReason } from './connect-reason.sqlserver';

const STREAM_HIGH_WATER_MARK = 256;

export class SqlServerConnector extends PooledSqlConnector<MssqlPoolLike, SqlConnectorConfigWithDriver<SqlServerDriver>> {
  readonly #driver: SqlServerDriver;
  readonly #active = new Set<MssqlRequestLike>();
  /** Incremental tables read with a keyset bound, order and limit (incremental-query.sqlserver.ts). */
  readonly supportsIncremental = true;

  constructor(config: SqlConnectorConfigWithDriver<SqlServerDriver>) {
    super(config, { dialect: SQLSERVER_DIALECT, names: EXACT_NAMES });
    this.#driver = config.driver ?? MSSQL_DRIVER;
  }

  protected override async open(budget: AbortSignal): Promise<void> {
    const { descriptor, secrets, sslMode, timeouts } = this.config;
    const target = await this.dialTarget(budget);
    const connector = pinnedTediousConnector(target, (host) => this.guardHost(host, budget));
    const pool = this.#driver.createPool(sqlServerPoolConfig({ descriptor, secrets, target, sslMode, timeouts, connector }));
    // tedious reports a broken idle connection on the pool; the next request reports it too.
    pool.on('error', () => undefined);
    this.setPool(pool);
    await raceAbort(pool.connect(), budget);
    await this.ping(budget);
  }

  protected override async ping(signal: AbortSignal): Promise<void> {
    await this.#query('SELECT 1 AS ok', [], signal);
  }

  protected override async readSchema(budget: AbortSignal): Promise<DiscoveredSchema> {
    const discovery = sqlServerDiscovery(this.config.attributes.schemaScope);
    const tables = (await this.#query(discovery.tablesSql, discovery.schemas, budget)) as SqlServerTableRow[];
    const columns = (await this.#query(discovery.columnsSql, discovery.schemas, budget)) as SqlServerColumnRow[];
    const keys = (await this.#query(discovery.keysSql, discovery.schemas, budget)) as SqlServerKeyRow[];
    return buildSqlServerSchema(tables, columns, keys);
  }

  protected override openTable(key: string, plan: TableQueryPlan, signal: AbortSignal): Promise<TableSource> {
    const pool = this.requirePool();
    const path = `${this.config.descriptor.configName}.${key}`;
    const keyset = plan.incremental ? sqlServerKeyset(plan.incremental, plan.where.params.length + 1, path) : undefined;
    const statement = sqlServerStatement(plan, keyset);
    const request = this.#driver.createRequest(pool, queryTimeoutMs(this.config.timeouts, plan.filtered));
    for (const p of statement.parameters) request.input(p.name, p.type, p.value);
    const readable = request.toReadableStream({ highWaterMark: STREAM_HIGH_WATER_MARK });
    this.#active.add(request);
    // In stream mode failures arrive on the stream; the promise itself always settles quietly.
    request.query(statement.sql).catch(() => undefined);
    const converters = plan.columns.map((c) => [c.name, sqlServerConverter(c.nativeType)] as const);
    const rows = new ReadableTableRows<Record<string, unknown>>({
      readable,
      signal,
      mapRow: (raw) => convertRow(raw, converters),
      cancel: () => request.cancel(),
      release: () => {
        this.#active.delete(request);
      },
      mapError: (error) => (driverErrorCode(error) === 'ETIMEOUT' ? statementTimeout(error) : error),
    });
    return Promise.resolve(tableItems(key, rows));
  }

  protected override connectReason(error: object): ConnectReason | undefined {
    return sqlServerConnectReason(error);
  }

  protected override abandonCheckedOut(): void {
    for (const request of this.#active) request.cancel();
    this.#active.clear();
  }

  protected override async endPool(pool: MssqlPoolLike): Promise<void> {
    await pool.close().catch(() => undefined);
  }

  /** A buffered query (discovery, ping) with `values` bound as NVARCHAR @p1..; cancelled when `signal` aborts. */
  async #query(sql: string, values: readonly string[], signal: AbortSignal): Promise<readonly unknown[]> {
    const request = this.#driver.createRequest(this.requirePool());
    values.forEach((value, i) => request.input(`p${i + 1}`, TYPES.NVarChar(128), value));
    this.#active.add(request);
    try {
      const result = await raceAbort(request.query(sql), signal, () => request.cancel());
      return result.recordset ?? [];
    } finally {
      this.#active.delete(request);
    }
  }
}
