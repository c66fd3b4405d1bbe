/**
 * The MySQL/MariaDB connector (spec: worker-engine.md C1, C6). One pool of at most two
 * connections, opened by testConnection; discovery is cached and reused by queryStream; rows
 * stream with back-pressure from mysql2's `.stream()`.
 */
import {
  EngineError,
  compareUtf8,
  type ConnectionDescriptor,
  type Connector,
  type QueryRequest,
  type Row,
  type RowCursor,
  type SchemaSnapshot,
} from '@fetcher/engine';
import { createPool, type Pool, type PoolConnection, type QueryOptions } from 'mysql2';
import type { ConnectorAttributes } from '../common/attributes';
import { connectError } from '../common/errors';
import { resolveDialTarget, type DialTarget } from '../common/host-safety';
import type { ConnectorOptions } from '../common/options';
import { queryTimeoutMs, type ConnectorTimeouts } from '../common/timeouts';
import { raceAbort, statementTimeout, withTimeout } from '../sql/abort';
import { runConnectStage } from '../sql/connect-stage';
import { MYSQL_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, planTableQuery, toSnapshot, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { ReadableTableRows } from '../sql/readable-rows';
import { SequentialTableCursor, type TableRows } from '../sql/table-cursor';
import { MYSQL_SESSION_SQL, mysqlPoolOptions, mysqlSslOptions } from './connection-options.mysql';
import {
  MYSQL_CHECKS_SQL,
  MYSQL_COLUMNS_SQL,
  MYSQL_TABLES_SQL,
  buildMysqlSchema,
  type MysqlCheckRow,
  type MysqlColumnRow,
  type MysqlTableRow,
} from './discovery.mysql';
import { mysqlStatement } from './statement.mysql';
import { mysqlTypeCast } from './value-mapping.mysql';

export interface MysqlConnectorConfig {
  readonly descriptor: ConnectionDescriptor;
  readonly attributes: ConnectorAttributes;
  readonly options: ConnectorOptions;
  readonly timeouts: ConnectorTimeouts;
  readonly sslMode: string;
}

/** Server errors (structured codes) meaning "this server has no CHECK_CONSTRAINTS view as MariaDB has it". */
const NO_CHECK_VIEW = new Set(['ER_BAD_FIELD_ERROR', 'ER_UNKNOWN_TABLE', 'ER_NO_SUCH_TABLE']);
const STREAM_HIGH_WATER_MARK = 256;

export class MysqlConnector implements Connector {
  readonly #config: MysqlConnectorConfig;
  #pool: Pool | undefined;
  #schema: DiscoveredSchema | undefined;
  readonly #initialised = new WeakSet<PoolConnection>();
  readonly #checkedOut = new Set<PoolConnection>();
  #closed = false;

  constructor(config: MysqlConnectorConfig) {
    this.#config = config;
  }

  async testConnection(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw connectError();
    await runConnectStage(
      signal,
      this.#config.timeouts.connectMs,
      async (budget) => {
        if (this.#pool) return this.#ping(budget);
        const { descriptor, options, attributes, sslMode } = this.#config;
        const target = await resolveDialTarget(descriptor.host, options.hostSafety, {
          lookup: options.lookup,
          signal: budget,
          exempt: attributes.internal === true,
        });
        try {
          await this.#open(target, mysqlSslOptions(sslMode, attributes.ssl), budget);
        } catch (error) {
          // `preferred`: TLS when the server offers it, plain otherwise (C6).
          if (sslMode !== 'preferred' || errorCode(error) !== 'HANDSHAKE_NO_SSL_SUPPORT') throw error;
          await this.#endPool();
          await this.#open(target, undefined, budget);
        }
      },
      () => this.#endPool(),
    );
  }

  async discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    await this.#ensureOpen(signal);
    const budget = withTimeout(signal, this.#config.timeouts.discoveryMs);
    const connection = await this.#acquire(budget);
    let healthy = false;
    try {
      const tables = await this.#run<MysqlTableRow>(connection, { sql: MYSQL_TABLES_SQL }, budget);
      const columns = await this.#run<MysqlColumnRow>(connection, { sql: MYSQL_COLUMNS_SQL }, budget);
      const checks = await this.#run<MysqlCheckRow>(connection, { sql: MYSQL_CHECKS_SQL }, budget).catch((error: unknown) => {
        if (NO_CHECK_VIEW.has(errorCode(error) ?? '')) return [];
        throw error;
      });
      healthy = true;
      this.#schema = buildMysqlSchema(tables, columns, checks);
    } finally {
      this.#release(connection, healthy);
    }
    return toSnapshot(this.#config.descriptor.configName, this.#schema);
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    if (this.#schema === undefined) await this.discoverSchema(signal);
    const schema = this.#schema as DiscoveredSchema;
    const keys = Object.keys(request.tables).sort(compareUtf8);
    // Every table is resolved before the first row moves: a bad name fails the step up front.
    const plans = new Map(keys.map((key) => [key, planTableQuery(schema, MYSQL_DIALECT, EXACT_NAMES, request, key)]));
    return new SequentialTableCursor(keys, (key, tableSignal) => this.#openTable(plans.get(key)!, tableSignal), signal);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A connection still streaming would keep pool.end() waiting for its result; drop it instead.
    for (const connection of this.#checkedOut) connection.destroy();
    this.#checkedOut.clear();
    await this.#endPool();
  }

  async #openTable(plan: TableQueryPlan, signal: AbortSignal): Promise<TableRows> {
    const connection = await this.#acquire(signal);
    const statement = mysqlStatement(plan);
    const options: QueryOptions = {
      sql: statement.sql,
      values: statement.values as unknown[],
      typeCast: mysqlTypeCast(statement.jsonColumns),
      timeout: queryTimeoutMs(this.#config.timeouts, plan.filtered),
    };
    const readable = connection.query(options).stream({ highWaterMark: STREAM_HIGH_WATER_MARK });
    return new ReadableTableRows<Row>({
      readable,
      signal,
      mapRow: (raw) => raw,
      // Destroying the connection stops the transfer; the server ends the statement on its next write.
      cancel: () => connection.destroy(),
      release: (completed) => this.#release(connection, completed),
      mapError: (error) => (errorCode(error) === 'PROTOCOL_SEQUENCE_TIMEOUT' ? statementTimeout(error) : error),
    });
  }

  async #open(target: DialTarget, ssl: ReturnType<typeof mysqlSslOptions>, signal: AbortSignal): Promise<void> {
    const { descriptor, attributes, timeouts } = this.#config;
    const pool = createPool(mysqlPoolOptions({ descriptor, attributes, target, ssl, timeouts }));
    // An idle connection that dies emits 'error' on itself; the next command reports the failure.
    pool.on('connection', (connection) => connection.on('error', () => undefined));
    this.#pool = pool;
    await this.#ping(signal);
  }

  async #ping(signal: AbortSignal): Promise<void> {
    const connection = await this.#acquire(signal);
    let healthy = false;
    try {
      await raceAbort(
        new Promise<void>((resolve, reject) => connection.ping((error) => (error ? reject(error) : resolve()))),
        signal,
        () => connection.destroy(),
      );
      healthy = true;
    } finally {
      this.#release(connection, healthy);
    }
  }

  async #ensureOpen(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw new EngineError('unavailable', 'connector is closed');
    if (!this.#pool) await this.testConnection(signal);
  }

  /** A pool connection with the session set up (UTC, backslash escapes); destroyed if the signal aborts first. */
  async #acquire(signal: AbortSignal): Promise<PoolConnection> {
    const pool = this.#pool;
    if (!pool || this.#closed) throw new EngineError('unavailable', 'connector is closed');
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

  async #endPool(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (!pool) return;
    await new Promise<void>((resolve) => pool.end(() => resolve()));
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
