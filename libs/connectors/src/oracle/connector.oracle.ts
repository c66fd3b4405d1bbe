/**
 * The Oracle connector (spec: worker-engine.md C1, C8), on oracledb's thin mode. One pool of at
 * most two sessions, opened by testConnection; discovery is cached and reused by queryStream; rows
 * stream from `connection.queryStream()` in fetches of 256.
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
import type { ConnectorAttributes } from '../common/attributes';
import { connectError } from '../common/errors';
import { resolveDialTarget } from '../common/host-safety';
import type { ConnectorOptions } from '../common/options';
import { queryTimeoutMs, type ConnectorTimeouts } from '../common/timeouts';
import { raceAbort, withTimeout } from '../sql/abort';
import { runConnectStage } from '../sql/connect-stage';
import { ORACLE_DIALECT } from '../sql/dialect';
import { UPPER_CASE_NAMES, planTableQuery, toSnapshot, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { ReadableTableRows } from '../sql/readable-rows';
import { SequentialTableCursor, type TableRows } from '../sql/table-cursor';
import { needsPinningProxy, oraclePoolAttributes, oracleServiceName, oracleTls, oracleWalletContent } from './connection-options.oracle';
import {
  ORACLE_CURRENT_USER_SQL,
  buildOracleSchema,
  oracleDiscovery,
  type OracleColumnRow,
  type OracleTableRow,
} from './discovery.oracle';
import {
  ORACLEDB_DRIVER,
  OUT_FORMAT_OBJECT,
  type OracleConnectionLike,
  type OracleDriver,
  type OraclePoolLike,
} from './oracledb-driver.oracle';
import { PinningProxy } from './pinning-proxy.oracle';
import { ORACLE_SESSION_SQL, oracleStatement } from './statement.oracle';
import { oracleConverter, oracleFetchTypeHandler } from './value-mapping.oracle';

export interface OracleConnectorConfig {
  readonly descriptor: ConnectionDescriptor;
  readonly attributes: ConnectorAttributes;
  readonly options: ConnectorOptions;
  readonly timeouts: ConnectorTimeouts;
  readonly sslMode: string;
  readonly driver?: OracleDriver;
}

const FETCH_ROWS = 256;

export class OracleConnector implements Connector {
  readonly #config: OracleConnectorConfig;
  readonly #driver: OracleDriver;
  #pool: OraclePoolLike | undefined;
  #proxy: PinningProxy | undefined;
  #schema: DiscoveredSchema | undefined;
  readonly #checkedOut = new Set<OracleConnectionLike>();
  #closed = false;

  constructor(config: OracleConnectorConfig) {
    this.#config = config;
    this.#driver = config.driver ?? ORACLEDB_DRIVER;
  }

  async testConnection(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw connectError();
    await runConnectStage(
      signal,
      this.#config.timeouts.connectMs,
      async (budget) => {
        if (!this.#pool) await this.#open(budget);
        await this.#withConnection(budget, (connection) => connection.execute('SELECT 1 FROM DUAL', [], {}));
      },
      () => this.#closePool(),
    );
  }

  async discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    await this.#ensureOpen(signal);
    const budget = withTimeout(signal, this.#config.timeouts.discoveryMs);
    const discovery = oracleDiscovery(this.#config.attributes.schemaScope);
    this.#schema = await this.#withConnection(budget, async (connection) => {
      const options = { outFormat: OUT_FORMAT_OBJECT };
      const [me] = ((await connection.execute(ORACLE_CURRENT_USER_SQL, [], options)).rows ?? []) as { USER: string }[];
      const tables = (await connection.execute(discovery.tablesSql, discovery.owners, options)).rows as OracleTableRow[];
      const columns = (await connection.execute(discovery.columnsSql, discovery.owners, options)).rows as OracleColumnRow[];
      return buildOracleSchema(me?.USER ?? '', tables ?? [], columns ?? []);
    });
    return toSnapshot(this.#config.descriptor.configName, this.#schema);
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    if (this.#schema === undefined) await this.discoverSchema(signal);
    const schema = this.#schema as DiscoveredSchema;
    // Requests carry Oracle names upper-cased (A7.1); the snapshot keys are too.
    const keys = Object.keys(request.tables).sort(compareUtf8);
    const plans = new Map(keys.map((key) => [key, planTableQuery(schema, ORACLE_DIALECT, UPPER_CASE_NAMES, request, key)]));
    return new SequentialTableCursor(keys, (key, tableSignal) => this.#openTable(plans.get(key)!, tableSignal), signal);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#checkedOut.clear();
    await this.#closePool();
  }

  async #open(signal: AbortSignal): Promise<void> {
    const { descriptor, options, attributes, sslMode, timeouts } = this.#config;
    // Settings that cannot work fail before any I/O: no service name, skip-verify, a CA without a key.
    if (oracleTls(sslMode)) oracleWalletContent(attributes.ssl);
    oracleServiceName(attributes);
    const target = await resolveDialTarget(descriptor.host, options.hostSafety, {
      lookup: options.lookup,
      signal,
      exempt: attributes.internal === true,
    });
    if (needsPinningProxy(sslMode, target)) {
      this.#proxy = await PinningProxy.start({ hostname: target.servername, port: descriptor.port, address: target.address, family: target.family });
    }
    const proxy = this.#proxy ? { host: this.#proxy.host, port: this.#proxy.port } : undefined;
    const attributesForPool = oraclePoolAttributes({ descriptor, attributes, target, sslMode, timeouts, ...(proxy ? { proxy } : {}) });
    this.#pool = await raceAbort(
      this.#driver.createPool(attributesForPool, async (connection) => {
        await connection.execute(ORACLE_SESSION_SQL, [], {});
      }),
      signal,
    );
  }

  async #openTable(plan: TableQueryPlan, signal: AbortSignal): Promise<TableRows> {
    const connection = await this.#acquire(signal);
    const statement = oracleStatement(plan);
    // callTimeout bounds each round trip: the statement and every fetch of the stream.
    connection.callTimeout = queryTimeoutMs(this.#config.timeouts, plan.filtered);
    const readable = connection.queryStream(statement.sql, statement.binds, {
      outFormat: OUT_FORMAT_OBJECT,
      fetchArraySize: FETCH_ROWS,
      prefetchRows: FETCH_ROWS,
      fetchTypeHandler: oracleFetchTypeHandler,
    });
    const converters = plan.columns.map((c) => [c.name, oracleConverter(c.nativeType)] as const);
    return new ReadableTableRows<Record<string, unknown>>({
      readable,
      signal,
      mapRow: (raw) => Object.fromEntries(converters.map(([name, convert]) => [name, convert(raw[name])])),
      cancel: () => {
        connection.break().catch(() => undefined);
      },
      release: (completed) => this.#release(connection, completed),
    });
  }

  /** Runs `work` on a pooled session; an abort breaks the call in progress and drops the session. */
  async #withConnection<T>(signal: AbortSignal, work: (connection: OracleConnectionLike) => Promise<T>): Promise<T> {
    const connection = await this.#acquire(signal);
    let healthy = false;
    try {
      const result = await raceAbort(work(connection), signal, () => {
        connection.break().catch(() => undefined);
      });
      healthy = true;
      return result;
    } finally {
      await this.#release(connection, healthy);
    }
  }

  async #acquire(signal: AbortSignal): Promise<OracleConnectionLike> {
    const pool = this.#pool;
    if (!pool || this.#closed) throw new EngineError('unavailable', 'connector is closed');
    const getting = pool.getConnection();
    const connection = await raceAbort(getting, signal, () => {
      getting.then((late) => late.close({ drop: true }), () => undefined).catch(() => undefined);
    });
    this.#checkedOut.add(connection);
    return connection;
  }

  async #release(connection: OracleConnectionLike, healthy: boolean): Promise<void> {
    if (!this.#checkedOut.delete(connection)) return;
    await connection.close(healthy ? {} : { drop: true }).catch(() => undefined);
  }

  async #ensureOpen(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw new EngineError('unavailable', 'connector is closed');
    if (!this.#pool) await this.testConnection(signal);
  }

  async #closePool(): Promise<void> {
    const pool = this.#pool;
    const proxy = this.#proxy;
    this.#pool = undefined;
    this.#proxy = undefined;
    if (pool) await pool.close(0).catch(() => undefined);
    if (proxy) await proxy.close();
  }
}
