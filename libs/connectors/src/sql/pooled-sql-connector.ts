import { EngineError, compareUtf8, type ConnectReason, type Connector, type QueryRequest, type RowCursor, type SchemaSnapshot } from '@fetcher/engine';
import { connectError } from '../common/errors';
import { resolveDialTarget, type DialTarget } from '../common/host-safety';
import { withTimeout } from '../common/abort';
import { runConnectStage } from './connect-stage';
import type { SqlDialect } from './dialect';
import { planTableQuery, toSnapshot, type DiscoveredSchema, type NameFold, type TableQueryPlan } from './discovered-schema';
import type { SqlConnectorConfig } from './sql-connector-config';
import { SequentialTableCursor, type TableFailurePolicy, type TableSource } from '../common/table-cursor';

/** How a SQL type names and reads its tables. */
export interface SqlConnectorShape {
  readonly dialect: SqlDialect;
  /** How requested names meet snapshot names. */
  readonly names: NameFold;
  readonly onTableFailure?: TableFailurePolicy;
}

/**
 * The lifecycle every SQL connector shares: one pool of at most two
 * sessions, opened by testConnection within the connect stage; discovery cached and reused by
 * queryStream; every table of a request planned before the first row moves, then read one after
 * another; close() idempotent and safe without a pool. Subclasses supply the driver's steps.
 */
export abstract class PooledSqlConnector<Pool, Config extends SqlConnectorConfig = SqlConnectorConfig> implements Connector {
  // Private fields, not properties: the config carries the decrypted password, and a connector
  // that is logged or inspected must not show it.
  readonly #config: Config;
  readonly #shape: SqlConnectorShape;
  #pool: Pool | undefined;
  #schema: DiscoveredSchema | undefined;
  #closed = false;

  protected constructor(config: Config, shape: SqlConnectorShape) {
    this.#config = config;
    this.#shape = shape;
  }

  async testConnection(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw connectError();
    await runConnectStage(
      signal,
      this.#config.timeouts.connectMs,
      (budget) => (this.#pool ? this.ping(budget) : this.open(budget)),
      () => this.closePool(),
      (error) => this.connectReason(error),
    );
  }

  async discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    await this.#ensureOpen(signal);
    const budget = withTimeout(signal, this.#config.timeouts.discoveryMs);
    this.#schema = await this.readSchema(budget, signal);
    return toSnapshot(this.#config.descriptor.configName, this.#schema);
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    if (this.#schema === undefined) await this.discoverSchema(signal);
    const schema = this.#schema as DiscoveredSchema;
    const { dialect, names, onTableFailure } = this.#shape;
    const keys = Object.keys(request.tables).sort(compareUtf8);
    // Every table is resolved before the first row moves: a bad name fails the step up front.
    const plans = new Map(keys.map((key) => [key, planTableQuery(schema, dialect, names, request, key)]));
    return new SequentialTableCursor(keys, (key, tableSignal) => this.openTable(key, plans.get(key)!, tableSignal), signal, onTableFailure);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.abandonCheckedOut();
    await this.closePool();
  }

  protected get config(): Config {
    return this.#config;
  }

  /** The checked address to dial (host safety, DNS pinning); operator-internal datasources are exempt. */
  protected dialTarget(signal: AbortSignal): Promise<DialTarget> {
    return this.guardHost(this.#config.descriptor.host, signal);
  }

  /** The checked address for any host this connector is asked to dial, under the same policy. */
  protected guardHost(host: string, signal?: AbortSignal): Promise<DialTarget> {
    const { options, attributes } = this.#config;
    return resolveDialTarget(host, options.hostSafety, {
      lookup: options.lookup,
      ...(signal ? { signal } : {}),
      exempt: attributes.internal === true,
    });
  }

  /** The open pool, for work on it; refused once the connector is closed. */
  protected requirePool(): Pool {
    const pool = this.#pool;
    if (!pool || this.#closed) throw new EngineError('unavailable', 'connector is closed');
    return pool;
  }

  /** Called by open() as soon as the pool exists, so that a failed first ping still ends it. */
  protected setPool(pool: Pool): void {
    this.#pool = pool;
  }

  protected async closePool(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) await this.endPool(pool);
  }

  /** Checks the host, creates the pool (setPool) and pings it, within the connect stage's `budget`. */
  protected abstract open(budget: AbortSignal): Promise<void>;
  /** A round trip on the open pool. */
  protected abstract ping(signal: AbortSignal): Promise<void>;
  /** Reads the catalog within `budget`; `signal` is the caller's, to tell its abort from the budget's end. */
  protected abstract readSchema(budget: AbortSignal, signal: AbortSignal): Promise<DiscoveredSchema>;
  protected abstract openTable(key: string, plan: TableQueryPlan, signal: AbortSignal): Promise<TableSource>;
  /** The class of a failed dial from the driver's own error codes (Node's are recognised anyway). */
  protected abstract connectReason(error: object): ConnectReason | undefined;
  /** Stops whatever is still checked out (close() runs it before ending the pool, which would wait for it). */
  protected abstract abandonCheckedOut(): void;
  /** Ends the pool; never rejects. */
  protected abstract endPool(pool: Pool): Promise<void>;

  async #ensureOpen(signal: AbortSignal): Promise<void> {
    if (this.#closed) throw new EngineError('unavailable', 'connector is closed');
    if (!this.#pool) await this.testConnection(signal);
  }
}
