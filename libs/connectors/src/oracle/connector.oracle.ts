/**
 * The Oracle connector, on oracledb's thin mode. One pool of at
 * most two sessions, opened by testConnection; discovery is cached and reused by queryStream; rows
 * stream from `connection.queryStream()` in fetches of 256.
 */
import type { ConnectReason } from '@fetcher/engine';
import { queryTimeoutMs } from '../common/timeouts';
import { raceAbort } from '../common/abort';
import { ORACLE_DIALECT } from '../sql/dialect';
import { UPPER_CASE_NAMES, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { PooledSqlConnector } from '../sql/pooled-sql-connector';
import { ReadableTableRows } from '../sql/readable-rows';
import type { SqlConnectorConfigWithDriver } from '../sql/sql-connector-config';
import { tableItems, type TableSource } from '../common/table-cursor';
import { needsPinningProxy, oraclePoolAttributes, oracleServiceName, oracleTls, oracleWalletContent } from './connection-options.oracle';
import {
  ORACLE_CHARSET_SQL,
  ORACLE_CURRENT_USER_SQL,
  ORACLE_INVALID_IDENTIFIER,
  buildOracleSchema,
  oracleDiscovery,
  type OracleCollationRow,
  type OracleColumnRow,
  type OracleKeyRow,
  type OracleTableRow,
} from './discovery.oracle';
import { driverErrorCode } from '../sql/driver-error-code';
import { oracleKeyset } from './incremental-query.oracle';
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
import { oracleConnectReason } from './connect-reason.oracle';

const FETCH_ROWS = 256;

export class OracleConnector extends PooledSqlConnector<OraclePoolLike, SqlConnectorConfigWithDriver<OracleDriver>> {
  readonly #driver: OracleDriver;
  #proxy: PinningProxy | undefined;
  readonly #checkedOut = new Set<OracleConnectionLike>();
  /** Incremental tables read with a keyset bound, order and limit (incremental-query.oracle.ts). */
  readonly supportsIncremental = true;

  constructor(config: SqlConnectorConfigWithDriver<OracleDriver>) {
    // Requests carry Oracle names upper-cased; the snapshot keys are too.
    super(config, { dialect: ORACLE_DIALECT, names: UPPER_CASE_NAMES });
    this.#driver = config.driver ?? ORACLEDB_DRIVER;
  }

  protected override async open(budget: AbortSignal): Promise<void> {
    const { descriptor, attributes, secrets, sslMode, timeouts } = this.config;
    // Settings that cannot work fail before any I/O: no service name, skip-verify, a CA without a key.
    if (oracleTls(sslMode)) oracleWalletContent(secrets.ssl);
    oracleServiceName(attributes);
    const target = await this.dialTarget(budget);
    if (needsPinningProxy(sslMode, target)) {
      this.#proxy = await PinningProxy.start({ hostname: target.servername, port: descriptor.port, address: target.address, family: target.family });
    }
    const proxy = this.#proxy ? { host: this.#proxy.host, port: this.#proxy.port } : undefined;
    const attributesForPool = oraclePoolAttributes({ descriptor, attributes, secrets, target, sslMode, timeouts, ...(proxy ? { proxy } : {}) });
    const pool = await raceAbort(
      this.#driver.createPool(attributesForPool, async (connection) => {
        await connection.execute(ORACLE_SESSION_SQL, [], {});
      }),
      budget,
    );
    this.setPool(pool);
    await this.ping(budget);
  }

  protected override async ping(signal: AbortSignal): Promise<void> {
    await this.#withConnection(signal, (connection) => connection.execute('SELECT 1 FROM DUAL', [], {}));
  }

  protected override readSchema(budget: AbortSignal): Promise<DiscoveredSchema> {
    const discovery = oracleDiscovery(this.config.attributes.schemaScope);
    return this.#withConnection(budget, async (connection) => {
      const options = { outFormat: OUT_FORMAT_OBJECT };
      const [me] = ((await connection.execute(ORACLE_CURRENT_USER_SQL, [], options)).rows ?? []) as { USER: string }[];
      const tables = (await connection.execute(discovery.tablesSql, discovery.owners, options)).rows as OracleTableRow[];
      const columns = (await connection.execute(discovery.columnsSql, discovery.owners, options)).rows as OracleColumnRow[];
      const keys = (await connection.execute(discovery.keysSql, discovery.owners, options)).rows as OracleKeyRow[];
      const [charset] = ((await connection.execute(ORACLE_CHARSET_SQL, [], options)).rows ?? []) as { VALUE: string }[];
      // Before 12.2 there is no collation column: VARCHAR2 ordering is then left unknown.
      const collations = await connection.execute(discovery.collationsSql, discovery.owners, options).then(
        (result) => (result.rows ?? []) as OracleCollationRow[],
        (error: unknown) => {
          if (driverErrorCode(error) === ORACLE_INVALID_IDENTIFIER) return undefined;
          throw error;
        },
      );
      const text = { charset: charset?.VALUE ?? '', ...(collations ? { collations } : {}) };
      return buildOracleSchema(me?.USER ?? '', tables ?? [], columns ?? [], keys ?? [], text);
    });
  }

  protected override async openTable(key: string, plan: TableQueryPlan, signal: AbortSignal): Promise<TableSource> {
    const connection = await this.#acquire(signal);
    const keyset = plan.incremental ? oracleKeyset(plan.incremental, plan.where.params.length + 1, `${this.config.descriptor.configName}.${key}`) : undefined;
    const statement = oracleStatement(plan, keyset);
    // callTimeout bounds each round trip: the statement and every fetch of the stream.
    connection.callTimeout = queryTimeoutMs(this.config.timeouts, plan.filtered);
    const readable = connection.queryStream(statement.sql, statement.binds, {
      outFormat: OUT_FORMAT_OBJECT,
      fetchArraySize: FETCH_ROWS,
      prefetchRows: FETCH_ROWS,
      fetchTypeHandler: oracleFetchTypeHandler,
    });
    const converters = plan.columns.map((c) => [c.name, oracleConverter(c.nativeType)] as const);
    const rows = new ReadableTableRows<Record<string, unknown>>({
      readable,
      signal,
      mapRow: (raw) => Object.fromEntries(converters.map(([name, convert]) => [name, convert(raw[name])])),
      cancel: () => {
        connection.break().catch(() => undefined);
      },
      release: (completed) => this.#release(connection, completed),
    });
    return tableItems(key, rows);
  }

  protected override connectReason(error: object): ConnectReason | undefined {
    return oracleConnectReason(error);
  }

  protected override abandonCheckedOut(): void {
    this.#checkedOut.clear();
  }

  protected override async closePool(): Promise<void> {
    const proxy = this.#proxy;
    this.#proxy = undefined;
    await super.closePool();
    if (proxy) await proxy.close();
  }

  protected override async endPool(pool: OraclePoolLike): Promise<void> {
    await pool.close(0).catch(() => undefined);
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
    const getting = this.requirePool().getConnection();
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
}
