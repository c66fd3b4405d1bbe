/**
 * The engine's ports. The connector registry is required; every other
 * port is optional, and whether it is present is settled once, in `createEngine`.
 */
import type {
  ConnectionDescriptor,
  ExecutionState,
  JsonValue,
  ListPagedQuery,
  Page,
  ProtectedCredential,
  QueryRequest,
  ResultReference,
  Row,
  SchemaSnapshot,
  TenantContext,
} from './models';
import type { EngineError } from './errors';

/** Pure and deterministic: no I/O. Types are matched as the registry sees fit (connectors: case-insensitive). */
export interface ConnectorRegistry {
  connector(type: string): ConnectorFactory | undefined;
}

export interface ConnectorFactory {
  /** Synchronous and without network I/O. A bad descriptor throws; `null`/`undefined` counts as a failure. */
  build(descriptor: ConnectionDescriptor): Connector;
}

/**
 * One datasource connection, used by one job at a time; the engine never overlaps calls on one
 * connector. Rejections MAY quote DSNs or driver messages: the engine keeps them only as the
 * hidden cause of its own error and never renders them.
 */
export interface Connector {
  /**
   * The connector applies `QueryRequest.incremental` (keyset bound, order, limit) as its contract
   * on `IncrementalQuery` says. Absent or false: the engine refuses to run an incremental step on it.
   */
  readonly supportsIncremental?: boolean;
  /** The only step that MUST open the connection. Connect-stage failures throw EngineError('connect', ...). */
  testConnection(signal: AbortSignal): Promise<void>;
  discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot>;
  /**
   * Opens a cursor over the request's tables, in ascending table order. The engine reports a
   * rejection (or a cursor error) as unavailable "failed to query datasource", except an
   * EngineError of category `validation`, which passes through: a connector uses it for a filter
   * it cannot apply ("like requires a text column: <config>.<table>.<field>").
   */
  queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor>;
  /** Idempotent, and safe after a failed testConnection or none at all. */
  close(): Promise<void>;
}

/** One row as values; the engine encodes it canonically. */
export interface CursorRow {
  readonly table: string;
  readonly row: Row;
}

/**
 * Rows the connector already encoded as canonical JSON (for instance built by the database itself):
 * `rowCount` (>= 1) complete row objects as UTF-8, joined by `,`, with no leading or trailing
 * separator and no surrounding brackets. The connector MUST emit exactly what the engine's
 * canonical encoder would emit for those rows (keys sorted by UTF-8 bytes, exact numbers, ISO UTC
 * timestamps, base64 binary, compact). The engine still counts rows and bytes, enforces the size
 * limit and digests every byte it writes.
 */
export interface CursorEncodedRows {
  readonly table: string;
  readonly encoded: Uint8Array;
  readonly rowCount: number;
  /**
   * Required for a table the request reads incrementally: the cursor and tie-breaker values of the
   * batch's last row, as a row would carry them. The engine cannot read them out of the bytes.
   */
  readonly position?: EncodedPosition;
}

export interface EncodedPosition {
  readonly value: JsonValue;
  readonly key: JsonValue;
}

export type CursorItem = CursorRow | CursorEncodedRows;

export function isEncodedRows(item: CursorItem): item is CursorEncodedRows {
  return (item as CursorEncodedRows).encoded !== undefined;
}

/**
 * Order contract: items are grouped by table, and tables come in ascending order of the request's
 * sorted table list (tables without rows simply do not appear). An aborted signal makes `next()`
 * reject. Closing early MUST release any server-side cursor.
 */
export interface RowCursor {
  /** `null` at the end. */
  next(): Promise<CursorItem | null>;
  /** Idempotent. */
  close(): Promise<void>;
}

/** Only with encrypted persistence. Errors MUST NOT carry secrets. */
export interface CredentialProtector {
  protect(tenant: TenantContext, plaintext: string): Promise<ProtectedCredential>;
  reveal(tenant: TenantContext, ciphertext: string, keyVersion: number): Promise<string>;
}

/** Every method is required when the port is provided; read-only stores reject mutations. */
export interface ConnectionStore {
  findConnection(tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined>;
  /** A duplicate MUST throw: it is the atomic backstop behind the engine's existence check. */
  create(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void>;
  /** No credential: keep the stored secret and key version. Missing connection: throw. */
  update(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void>;
  delete(tenant: TenantContext, configName: string): Promise<void>;
  /** Deterministic order, no deleted entries. */
  list(tenant: TenantContext): Promise<readonly ConnectionDescriptor[]>;
  /** Soft-deleted counts as not found. */
  findById(tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined>;
  updateById(
    tenant: TenantContext,
    id: string,
    descriptor: ConnectionDescriptor,
    credential?: ProtectedCredential,
  ): Promise<void>;
  deleteById(tenant: TenantContext, id: string): Promise<void>;
  listPaged(tenant: TenantContext, query: ListPagedQuery): Promise<Page<ConnectionDescriptor>>;
}

export const CONNECTION_STORE_METHODS = [
  'findConnection',
  'create',
  'update',
  'delete',
  'list',
  'findById',
  'updateById',
  'deleteById',
  'listPaged',
] as const satisfies readonly (keyof ConnectionStore)[];

/** The engine swallows this port's errors: a cache failure is a miss. */
export interface SchemaCache {
  getSchema(tenant: TenantContext, configName: string): Promise<SchemaSnapshot | undefined>;
  putSchema(tenant: TenantContext, snapshot: SchemaSnapshot): Promise<void>;
}

export interface ResultWriter {
  /** Applies back-pressure: the engine awaits each write before the next. */
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<ResultReference>;
  /** Best-effort cleanup after a failure; MUST NOT throw for an already-closed writer. */
  abort(reason: EngineError): Promise<void>;
}

export interface ResultSink {
  openResultStream(tenant: TenantContext, options: { requestId?: string }): Promise<ResultWriter>;
}

/** Best-effort upsert; the engine swallows its errors. */
export interface ExecutionStore {
  saveExecution(tenant: TenantContext, state: ExecutionState): Promise<void>;
}

export interface ActiveExecutionChecker {
  hasActiveExecutions(tenant: TenantContext, configName: string): Promise<boolean>;
}

export interface Span {
  end(error?: EngineError): void;
}

export interface Observability {
  startSpan(name: string, attributes?: Readonly<Record<string, string | number | boolean>>): Span;
}
