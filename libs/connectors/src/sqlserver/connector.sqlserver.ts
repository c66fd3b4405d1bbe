/**
 * The SQL Server connector (spec: worker-engine.md C1, C7). One mssql pool of at most two
 * connections, opened by testConnection; discovery is cached and reused by queryStream; rows
 * stream through `request.toReadableStream()`, which pauses the request when the buffer is full.
 */
import {
  EngineError,
  compareUtf8,
  type ConnectionDescriptor,
  type Connector,
  type QueryRequest,
  type RowCursor,
  type SchemaSnapshot,
} from '@fetcher/engine';
import { TYPES } from 'mssql';
import type { ConnectorAttributes } from '../common/attributes';
import { connectError } from '../common/errors';
import { resolveDialTarget } from '../common/host-safety';
import type { ConnectorOptions } from '../common/options';
import { queryTimeoutMs, type ConnectorTimeouts } from '../common/timeouts';
import { raceAbort, statementTimeout, withTimeout } from '../sql/abort';
import { runConnectStage } from '../sql/connect-stage';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, planTableQuery, toSnapshot, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { ReadableTableRows } from '../sql/readable-rows';
import { SequentialTableCursor, type TableRows } from '../sql/table-cursor';
import { sqlServerPoolConfig } from './connection-options.sqlserver';
import { buildSqlServerSchema, sqlServerDiscovery, type SqlServerColumnRow, type SqlServerTableRow } from './discovery.sqlserver';
import { MSSQL_DRIVER, type MssqlPoolLike, type MssqlRequestLike, type SqlServerDriver } from './mssql-driver.sqlserver';
import { sqlServerStatement } from './statement.sqlserver';
import { convertRow, sqlServerConverter } from './value-mapping.sqlserver';

export interface SqlServerConnectorConfig {
  readonly descriptor: ConnectionDescriptor;
  readonly attributes: ConnectorAttributes;
  readonly options: ConnectorOptions;
  readonly timeouts: ConnectorTimeouts;
  readonly sslMode: string;
  readonly driver?: SqlServerDriver;
}

const STREAM_HIGH_WATER_MARK = 256;

export class SqlServerConnector implements Connector {
  readonly #config: SqlServerConnectorConfig;
  readonly #driver: SqlServerDriver;
  #pool: MssqlPoolLike | undefined;
  #schema: DiscoveredSchema | undefined;
  readonly #active = new Set<MssqlRequestLike>();
  #closed = false;

  constructor(config: SqlServerConnectorConfig) {
    this.#config = config;
    this.#driver = config.driver ?? MSSQL_DRIVER;
  }

  async testConnection(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw connectError();
    await runConnectStage(
      signal,
      this.#config.timeouts.connectMs,
      async (budget) => {
        if (!this.#pool) {
          const { descriptor, options, attributes, sslMode, timeouts } = this.#config;
          const target = await resolveDialTarget(descriptor.host, options.hostSafety, {
            lookup: options.lookup,
            signal: budget,
            exempt: attributes.internal === true,
          });
          const pool = this.#driver.createPool(sqlServerPoolConfig({ descriptor, attributes, target, sslMode, timeouts }));
          // tedious reports a broken idle connection on the pool; the next request reports it too.
          pool.on('error', () => undefined);
          this.#pool = pool;
          await raceAbort(pool.connect(), budget);
        }
        await this.#query('SELECT 1 AS ok', [], budget);
      },
      () => this.#closePool(),
    );
  }

  async discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    await this.#ensureOpen(signal);
    const budget = withTimeout(signal, this.#config.timeouts.discoveryMs);
    const discovery = sqlServerDiscovery(this.#config.attributes.schemaScope);
    const tables = (await this.#query(discovery.tablesSql, discovery.schemas, budget)) as SqlServerTableRow[];
    const columns = (await this.#query(discovery.columnsSql, discovery.schemas, budget)) as SqlServerColumnRow[];
    this.#schema = buildSqlServerSchema(tables, columns);
    return toSnapshot(this.#config.descriptor.configName, this.#schema);
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    if (this.#schema === undefined) await this.discoverSchema(signal);
    const schema = this.#schema as DiscoveredSchema;
    const keys = Object.keys(request.tables).sort(compareUtf8);
    const plans = new Map(keys.map((key) => [key, planTableQuery(schema, SQLSERVER_DIALECT, EXACT_NAMES, request, key)]));
    return new SequentialTableCursor(keys, (key, tableSignal) => this.#openTable(plans.get(key)!, tableSignal), signal);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const request of this.#active) request.cancel();
    this.#active.clear();
    await this.#closePool();
  }

  #openTable(plan: TableQueryPlan, signal: AbortSignal): Promise<TableRows> {
    const pool = this.#requirePool();
    const statement = sqlServerStatement(plan);
    const request = this.#driver.createRequest(pool, queryTimeoutMs(this.#config.timeouts, plan.filtered));
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
      mapError: (error) => (errorCode(error) === 'ETIMEOUT' ? statementTimeout(error) : error),
    });
    return Promise.resolve(rows);
  }

  /** A buffered query (discovery, ping) with `values` bound as NVARCHAR @p1..; cancelled when `signal` aborts. */
  async #query(sql: string, values: readonly string[], signal: AbortSignal): Promise<readonly unknown[]> {
    const request = this.#driver.createRequest(this.#requirePool());
    values.forEach((value, i) => request.input(`p${i + 1}`, TYPES.NVarChar(128), value));
    this.#active.add(request);
    try {
      const result = await raceAbort(request.query(sql), signal, () => request.cancel());
      return result.recordset ?? [];
    } finally {
      this.#active.delete(request);
    }
  }

  async #ensureOpen(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw new EngineError('unavailable', 'connector is closed');
    if (!this.#pool) await this.testConnection(signal);
  }

  #requirePool(): MssqlPoolLike {
    if (!this.#pool || this.#closed) throw new EngineError('unavailable', 'connector is closed');
    return this.#pool;
  }

  async #closePool(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) await pool.close().catch(() => undefined);
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
