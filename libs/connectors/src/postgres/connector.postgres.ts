/**
 * The PostgreSQL connector. One pool of at most two sessions,
 * opened by testConnection on the pinned address; discovery is cached and reused by queryStream.
 * Unfiltered tables stream through `COPY ... TO STDOUT (FORMAT binary)` and are encoded into
 * canonical JSON bytes here (CursorEncodedRows); filtered tables, whose values must be bound,
 * read a server-side portal in batches of 256 rows (CursorRow).
 */
import { compareUtf8, type ConnectReason } from '@fetcher/engine';
import { Pool, type PoolClient, type QueryResult, type QueryResultRow } from 'pg';
import type { DialTarget } from '../common/host-safety';
import { queryTimeoutMs } from '../common/timeouts';
import { abortError, raceAbort, statementTimeout, throwIfAborted } from '../common/abort';
import { POSTGRES_DIALECT, qualifiedName } from '../sql/dialect';
import { EXACT_NAMES, type DiscoveredSchema, type TableQueryPlan } from '../sql/discovered-schema';
import { PooledSqlConnector } from '../sql/pooled-sql-connector';
import { buildSelect } from '../sql/select';
import type { SqlConnectorConfig } from '../sql/sql-connector-config';
import type { TableSource } from '../common/table-cursor';
import { keysetClause, literalKeyset } from './incremental-query.postgres';
import { toPgParam } from './pg-param.postgres';
import { sendCancelRequest } from './cancel-request.postgres';
import type { ClientLease } from './client-lease.postgres';
import {
  POSTGRES_PING_SQL,
  POSTGRES_SESSION_SQL,
  postgresPoolConfig,
  postgresTlsAttempts,
  type PostgresTls,
} from './connection-options.postgres';
import { copyPlan } from './copy-columns.postgres';
import { CopyTableSource } from './copy-table-source.postgres';
import {
  POSTGRES_COLUMNS_SQL,
  POSTGRES_PRIMARY_KEYS_SQL,
  POSTGRES_TABLES_SQL,
  buildPostgresSchema,
  discoveryScope,
  postgresColumn,
  type PostgresColumn,
  type PostgresColumnRow,
  type PostgresKeyRow,
  type PostgresTableRow,
} from './discovery.postgres';
import { PortalTableSource } from './portal-table-source.postgres';
import { isQueryCanceled } from './sql-state.postgres';
import { readExpression, textConverter } from './value-mapping.postgres';
import { postgresConnectReason } from './connect-reason.postgres';

export interface PostgresConnectorConfig extends SqlConnectorConfig {
  /** The COPY fast path for unfiltered tables (default on); off, every table takes the row path. */
  readonly copyFastPath?: boolean;
}

/** pg's Client carries the cancel key at runtime; @types/pg does not declare it. */
interface CancelKey {
  readonly processID: number | null;
  readonly secretKey: number | null;
}

export class PostgresConnector extends PooledSqlConnector<Pool, PostgresConnectorConfig> {
  /**
   * Incremental tables read through COPY when unfiltered and their bounds are literal-safe, else the
   * row path with a bound keyset (incremental-query.postgres.ts).
   */
  readonly supportsIncremental = true;
  #target: DialTarget | undefined;
  #utf8 = false;
  readonly #initialised = new WeakSet<PoolClient>();
  readonly #leases = new Set<ClientLease>();

  constructor(config: PostgresConnectorConfig) {
    // A failed table rejects at once: stopping its statement may wait on a cancel request.
    super(config, { dialect: POSTGRES_DIALECT, names: EXACT_NAMES, onTableFailure: 'reject-then-close' });
  }

  override async testConnection(signal: AbortSignal): Promise<void> {
    // Unlike the other SQL connectors, an aborted call reports its abort even on a closed connector.
    throwIfAborted(signal);
    await super.testConnection(signal);
  }

  protected override async open(budget: AbortSignal): Promise<void> {
    const { secrets, sslMode } = this.config;
    const target = await this.dialTarget(budget);
    this.#target = target;
    const attempts = postgresTlsAttempts(sslMode, secrets.ssl, target.servername);
    for (let i = 0; i < attempts.length; i++) {
      try {
        await this.#openPool(target, attempts[i], budget);
        return;
      } catch (error) {
        await this.closePool();
        // allow/prefer: the other transport gets its turn, unless time is up.
        if (i === attempts.length - 1 || budget.aborted) throw error;
      }
    }
  }

  protected override async ping(signal: AbortSignal): Promise<void> {
    const lease = await this.#acquire(signal);
    let healthy = false;
    try {
      const rows = await this.#run<{ server_encoding: string }>(lease, POSTGRES_PING_SQL, [], signal);
      // COPY passes text through in the server's encoding; only UTF-8 is canonical as it comes.
      this.#utf8 = rows[0]?.server_encoding === 'UTF8';
      healthy = true;
    } finally {
      lease.release(healthy);
    }
  }

  protected override async readSchema(budget: AbortSignal, signal: AbortSignal): Promise<DiscoveredSchema> {
    const { timeouts, attributes } = this.config;
    const lease = await this.#acquire(budget);
    let healthy = false;
    try {
      const scope = discoveryScope(attributes.schemaScope);
      await this.#run(lease, `SET statement_timeout = ${Math.ceil(timeouts.discoveryMs)}`, [], budget);
      const tables = await this.#run<PostgresTableRow>(lease, POSTGRES_TABLES_SQL, [scope], budget);
      const columns = await this.#run<PostgresColumnRow>(lease, POSTGRES_COLUMNS_SQL, [scope], budget);
      const keys = await this.#run<PostgresKeyRow>(lease, POSTGRES_PRIMARY_KEYS_SQL, [scope], budget);
      healthy = true;
      return buildPostgresSchema(tables, columns, keys);
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      throw isQueryCanceled(error) || budget.aborted ? statementTimeout(error) : error;
    } finally {
      lease.release(healthy);
    }
  }

  protected override async openTable(key: string, plan: TableQueryPlan, signal: AbortSignal): Promise<TableSource> {
    const lease = await this.#acquire(signal);
    try {
      const timeoutMs = queryTimeoutMs(this.config.timeouts, plan.filtered);
      await this.#run(lease, `SET statement_timeout = ${Math.ceil(timeoutMs)}`, [], signal);
      const columns = canonicalOrder(plan.columns.map(postgresColumn));
      const table = qualifiedName(POSTGRES_DIALECT, plan.table.schema, plan.table.table);
      const copyable = this.config.copyFastPath !== false && this.#utf8;
      if (copyable && !plan.filtered) {
        return new CopyTableSource({ lease, table: key, plan: copyPlan(POSTGRES_DIALECT, table, columns), signal });
      }
      // An incremental table without filters also takes COPY when its bounds can be written as literals.
      const literal = copyable && plan.incremental && plan.where.sql === '' ? literalKeyset(plan.incremental, `${this.config.descriptor.configName}.${key}`, table) : undefined;
      if (literal && plan.incremental) {
        const clause = `${literal.where === '' ? '' : ` WHERE ${literal.where}`}${literal.tail}`;
        const position = { cursor: plan.incremental.cursor.name, key: plan.incremental.tieBreaker.name };
        return new CopyTableSource({ lease, table: key, plan: copyPlan(POSTGRES_DIALECT, table, columns, clause), signal, position });
      }
      const select = columns.map((c) => readExpression(c, POSTGRES_DIALECT.quoteIdentifier(c.catalogName)));
      const params = plan.where.params.map(toPgParam);
      let sql = buildSelect(POSTGRES_DIALECT, table, select, plan.where);
      if (plan.incremental) {
        const keyset = keysetClause(plan.incremental, params.length + 1, `${this.config.descriptor.configName}.${key}`, table);
        if (keyset.where !== '') sql += `${plan.where.sql === '' ? ' WHERE ' : ' AND '}${keyset.where}`;
        sql += keyset.tail;
        params.push(...keyset.params);
      }
      return new PortalTableSource({
        lease,
        table: key,
        sql,
        params,
        columns: columns.map((c) => ({ name: c.name, convert: textConverter(c) })),
        signal,
      });
    } catch (error) {
      lease.release(false);
      throw error;
    }
  }

  protected override connectReason(error: object): ConnectReason | undefined {
    return postgresConnectReason(error);
  }

  protected override abandonCheckedOut(): void {
    // A session still streaming would keep pool.end() waiting; drop it instead.
    for (const lease of [...this.#leases]) lease.release(false);
  }

  protected override async endPool(pool: Pool): Promise<void> {
    await pool.end().catch(() => undefined);
  }

  async #openPool(target: DialTarget, tls: PostgresTls, signal: AbortSignal): Promise<void> {
    const { descriptor, secrets, timeouts } = this.config;
    const pool = new Pool(postgresPoolConfig({ descriptor, secrets, target, tls, timeouts }));
    // An idle session that dies emits 'error' on the pool; the next checkout reports the failure.
    pool.on('error', () => undefined);
    this.setPool(pool);
    await this.ping(signal);
  }

  /** A pooled session with the session settings applied; dropped if the signal aborts first. */
  async #acquire(signal: AbortSignal): Promise<ClientLease> {
    const connecting = this.requirePool().connect();
    const client = await raceAbort(connecting, signal, () => {
      connecting.then((late) => late.release(true), () => undefined);
    });
    const lease = this.#lease(client);
    if (!this.#initialised.has(client)) {
      // While checked out the pool listens to no 'error' on the client; a socket failure must not crash the process.
      client.on('error', () => undefined);
      try {
        await this.#run(lease, POSTGRES_SESSION_SQL, [], signal);
      } catch (error) {
        lease.release(false);
        throw error;
      }
      this.#initialised.add(client);
    }
    return lease;
  }

  #lease(client: PoolClient): ClientLease {
    const { descriptor, timeouts } = this.config;
    const target = this.#target;
    let released = false;
    const lease: ClientLease = {
      client,
      settleMs: timeouts.connectMs,
      cancel: async () => {
        const key = client as unknown as CancelKey;
        if (!target || key.processID === null || key.secretKey === null) return;
        await sendCancelRequest(
          { address: target.address, port: descriptor.port, processId: key.processID, secretKey: key.secretKey },
          timeouts.connectMs,
        );
      },
      release: (healthy: boolean) => {
        if (released) return;
        released = true;
        this.#leases.delete(lease);
        client.release(healthy ? undefined : true);
      },
    };
    this.#leases.add(lease);
    return lease;
  }

  async #run<T>(lease: ClientLease, sql: string, params: readonly unknown[], signal: AbortSignal): Promise<T[]> {
    const work = lease.client.query<QueryResultRow>({ text: sql, values: [...params] });
    // A simple-protocol statement list (the session settings) answers with one result per statement.
    const result: unknown = await raceAbort(work, signal, () => void lease.cancel());
    const last = (Array.isArray(result) ? result[result.length - 1] : result) as QueryResult | undefined;
    return (last?.rows ?? []) as T[];
  }
}

/** Row keys in canonical (UTF-8) order, each once. */
function canonicalOrder(columns: readonly PostgresColumn[]): PostgresColumn[] {
  const byName = new Map<string, PostgresColumn>();
  for (const column of columns) if (!byName.has(column.name)) byName.set(column.name, column);
  return [...byName.values()].sort((a, b) => compareUtf8(a.name, b.name));
}

