/**
 * The MySQL/MariaDB connector. One pool of at most two
 * connections, opened by testConnection; discovery is cached and reused by queryStream; rows
 * stream with back-pressure from mysql2's `.stream()`. On MariaDB, tables whose every column has a
 * server rendering take the server-built JSON path instead (server-json-plan.mysql.ts): the server
 * writes each row's canonical JSON and no row objects are built.
 */
import type { ConnectReason, JsonValue, Row } from '@fetcher/engine';
import { createPool, type Pool, type PoolConnection, type QueryOptions } from 'mysql2';
import type { DialTarget } from '../common/host-safety';
import { queryTimeoutMs } from '../common/timeouts';
import { raceAbort, statementTimeout } from '../common/abort';
import { MYSQL_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { driverErrorCode } from '../sql/driver-error-code';
import { PooledSqlConnector } from '../sql/pooled-sql-connector';
import { ReadableTableRows } from '../sql/readable-rows';
import type { SqlConnectorConfig } from '../sql/sql-connector-config';
import { tableItems, type TableSource } from '../common/table-cursor';
import { MYSQL_SESSION_SQL, mysqlPoolOptions, mysqlSslOptions } from './connection-options.mysql';
import {
  MYSQL_CHECKS_SQL,
  MYSQL_COLUMNS_SQL,
  MYSQL_PRIMARY_KEYS_SQL,
  MYSQL_TABLES_SQL,
  buildMysqlSchema,
  type MysqlCheckRow,
  type MysqlColumnRow,
  type MysqlKeyRow,
  type MysqlTableRow,
} from './discovery.mysql';
import { mysqlKeyset } from './incremental-query.mysql';
import { mysqlStatement } from './statement.mysql';
import { mysqlTypeCast } from './value-mapping.mysql';
import { mysqlConnectReason } from './connect-reason.mysql';
import { serverJsonStatement } from './server-json-plan.mysql';
import { ServerJsonTableSource } from './server-json-source.mysql';

export interface MysqlConnectorConfig extends SqlConnectorConfig {
  /** The server-built JSON path on MariaDB (default on); off, every table takes the row path. */
  readonly serverJsonPath?: boolean;
}

/** The server's own name for itself: the server-built path is verified byte for byte on MariaDB only. */
const MYSQL_VERSION_SQL = 'SELECT VERSION() AS version';

/** Server errors (structured codes) meaning "this server has no CHECK_CONSTRAINTS view as MariaDB has it". */
const NO_CHECK_VIEW = new Set(['ER_BAD_FIELD_ERROR', 'ER_UNKNOWN_TABLE', 'ER_NO_SUCH_TABLE']);
const STREAM_HIGH_WATER_MARK = 256;

/**
 * mysql2 clears a query's inactivity timer only when the query finishes; a query cut short (its
 * connection broken, or destroyed on abort) would keep that timer, and the process, alive for the
 * whole query budget. `queryTimeout` is mysql2's own field for it.
 */
function stopQueryTimer(query: object): void {
  const holder = query as { queryTimeout?: ReturnType<typeof setTimeout> | null };
  if (holder.queryTimeout) clearTimeout(holder.queryTimeout);
  holder.queryTimeout = null;
}

/** A row without a prototype, so that any column name (even `__proto__`) is just a key. */
function keyedRow(names: readonly string[], values: readonly unknown[]): Row {
  const row = Object.create(null) as Record<string, JsonValue>;
  for (let i = 0; i < names.length; i++) row[names[i]] = values[i] as JsonValue;
  return row;
}

export class MysqlConnector extends PooledSqlConnector<Pool, MysqlConnectorConfig> {
  /** Incremental tables read with a keyset bound, order and limit (incremental-query.mysql.ts). */
  readonly supportsIncremental = true;
  readonly #initialised = new WeakSet<PoolConnection>();
  #mariadb = false;
  readonly #checkedOut = new Set<PoolConnection>();

  constructor(config: MysqlConnectorConfig) {
    super(config, { dialect: MYSQL_DIALECT, names: EXACT_NAMES });
  }

  protected override async open(budget: AbortSignal): Promise<void> {
    const { secrets, sslMode } = this.config;
    const target = await this.dialTarget(budget);
    try {
      await this.#openPool(target, mysqlSslOptions(sslMode, secrets.ssl), budget);
    } catch (error) {
      // `preferred`: TLS when the server offers it, plain otherwise.
      if (sslMode !== 'preferred' || driverErrorCode(error) !== 'HANDSHAKE_NO_SSL_SUPPORT') throw error;
      await this.closePool();
      await this.#openPool(target, undefined, budget);
    }
  }

  protected override async ping(signal: AbortSignal): Promise<void> {
    await this.#withConnection(signal, (connection) =>
      raceAbort(
        new Promise<void>((resolve, reject) => connection.ping((error) => (error ? reject(error) : resolve()))),
        signal,
        () => connection.destroy(),
      ),
    );
  }

  protected override async readSchema(budget: AbortSignal): Promise<DiscoveredSchema> {
    const catalog = await this.#withConnection(budget, async (connection) => {
      const tables = await this.#run<MysqlTableRow>(connection, { sql: MYSQL_TABLES_SQL }, budget);
      const columns = await this.#run<MysqlColumnRow>(connection, { sql: MYSQL_COLUMNS_SQL }, budget);
      const checks = await this.#run<MysqlCheckRow>(connection, { sql: MYSQL_CHECKS_SQL }, budget).catch((error: unknown) => {
        if (NO_CHECK_VIEW.has(driverErrorCode(error) ?? '')) return [];
        throw error;
      });
      const keys = await this.#run<MysqlKeyRow>(connection, { sql: MYSQL_PRIMARY_KEYS_SQL }, budget);
      return { tables, columns, checks, keys };
    });
    return buildMysqlSchema(catalog.tables, catalog.columns, catalog.checks, catalog.keys);
  }

  protected override async openTable(key: string, plan: TableQueryPlan, signal: AbortSignal): Promise<TableSource> {
    const connection = await this.#acquire(signal);
    const timeoutMs = queryTimeoutMs(this.config.timeouts, plan.filtered);
    // Incremental tables take the row path: the runner tracks the cursor from each row's values.
    const serverJson = this.config.serverJsonPath !== false && this.#mariadb && !plan.incremental ? serverJsonStatement(plan) : undefined;
    if (serverJson) {
      return new ServerJsonTableSource({
        connection,
        table: key,
        statement: serverJson,
        timeoutMs,
        signal,
        release: (healthy) => this.#release(connection, healthy),
      });
    }
    const keyset = plan.incremental ? mysqlKeyset(plan.incremental, `${this.config.descriptor.configName}.${key}`) : undefined;
    const statement = mysqlStatement(plan, keyset);
    const options: QueryOptions = {
      sql: statement.sql,
      values: statement.values as unknown[],
      typeCast: mysqlTypeCast(statement.jsonColumns),
      timeout: timeoutMs,
      // Arrays, keyed below: a column named `__proto__` must become a plain key of the row.
      rowsAsArray: true,
    };
    const query = connection.query(options);
    const readable = query.stream({ highWaterMark: STREAM_HIGH_WATER_MARK });
    // A streaming query has no callback, so mysql2 reports a broken connection (or a result it
    // cannot read) on the connection, not on the stream: without this the read would sit idle
    // until the query timeout.
    const onConnectionError = (error: unknown) => readable.destroy(error instanceof Error ? error : new Error('connection failed'));
    connection.on('error', onConnectionError);
    const rows = new ReadableTableRows<unknown[]>({
      readable,
      signal,
      mapRow: (values) => keyedRow(statement.names, values),
      // Destroying the connection stops the transfer; the server ends the statement on its next write.
      cancel: () => connection.destroy(),
      release: (completed) => {
        connection.off('error', onConnectionError);
        if (!completed) stopQueryTimer(query);
        this.#release(connection, completed);
      },
      mapError: (error) => (driverErrorCode(error) === 'PROTOCOL_SEQUENCE_TIMEOUT' ? statementTimeout(error) : error),
    });
    return tableItems(key, rows);
  }

  protected override connectReason(error: object): ConnectReason | undefined {
    return mysqlConnectReason(error);
  }

  protected override abandonCheckedOut(): void {
    // A connection still streaming would keep pool.end() waiting for its result; drop it instead.
    for (const connection of this.#checkedOut) connection.destroy();
    this.#checkedOut.clear();
  }

  protected override async endPool(pool: Pool): Promise<void> {
    await new Promise<void>((resolve) => pool.end(() => resolve()));
  }

  async #openPool(target: DialTarget, ssl: ReturnType<typeof mysqlSslOptions>, signal: AbortSignal): Promise<void> {
    const { descriptor, secrets, timeouts } = this.config;
    const pool = createPool(mysqlPoolOptions({ descriptor, secrets, target, ssl, timeouts }));
    // An idle connection that dies emits 'error' on itself; the next command reports the failure.
    pool.on('connection', (connection) => connection.on('error', () => undefined));
    this.setPool(pool);
    await this.ping(signal);
  }

  /** Runs `work` on a pooled connection; it goes back to the pool only if `work` succeeded. */
  async #withConnection<T>(signal: AbortSignal, work: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await this.#acquire(signal);
    let healthy = false;
    try {
      const result = await work(connection);
      healthy = true;
      return result;
    } finally {
      this.#release(connection, healthy);
    }
  }

  /** A pool connection with the session set up (UTC, backslash escapes); destroyed if the signal aborts first. */
  async #acquire(signal: AbortSignal): Promise<PoolConnection> {
    const pool = this.requirePool();
    const getting = new Promise<PoolConnection>((resolve, reject) =>
      pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
    );
    const connection = await raceAbort(getting, signal, () => {
      getting.then((late) => late.destroy(), () => undefined);
    });
    this.#checkedOut.add(connection);
    if (!this.#initialised.has(connection)) {
      try {
        await this.#run(connection, { sql: MYSQL_SESSION_SQL }, signal);
        const [server] = await this.#run<{ version: string }>(connection, { sql: MYSQL_VERSION_SQL }, signal);
        this.#mariadb = /mariadb/i.test(String(server?.version ?? ''));
      } catch (error) {
        this.#release(connection, false);
        throw error;
      }
      this.#initialised.add(connection);
    }
    return connection;
  }

  #run<T>(connection: PoolConnection, options: QueryOptions, signal: AbortSignal): Promise<T[]> {
    const work = new Promise<T[]>((resolve, reject) =>
      connection.query(options, (error, rows) => (error ? reject(error) : resolve(rows as T[]))),
    );
    return raceAbort(work, signal, () => connection.destroy());
  }

  /** Healthy connections go back to the pool; anything interrupted is dropped, never reused. */
  #release(connection: PoolConnection, healthy: boolean): void {
    if (!this.#checkedOut.delete(connection)) return;
    if (healthy) connection.release();
    else connection.destroy();
  }
}
