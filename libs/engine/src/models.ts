/**
 * The engine's data model. Plain, serialisable shapes, except where a
 * field must stay hidden (passwords, host attributes).
 */

import type { Limits } from './limits';

/** A number kept as its exact literal text (a 64-bit integer, a NUMERIC, a JSON column's literal). */
export class JsonNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

/**
 * A value a connector hands to the engine. `bigint` and `JsonNumber` are written as exact numbers,
 * `Uint8Array` as base64, `Date` is not accepted: connectors turn temporal values into ISO strings
 * themselves, because only they know the stored precision.
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | bigint
  | JsonNumber
  | Uint8Array
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

export type Row = Readonly<Record<string, JsonValue>>;

export interface TenantContext {
  readonly tenantId: string;
  readonly requestId?: string;
}

/**
 * Opaque, non-secret host data that rides on a descriptor (the connectors read `metadata`,
 * `schemaScope` and `internal`). Decrypted credentials never go here: they go in `secrets`.
 */
export type HostAttributes = Readonly<Record<string, unknown>>;

/** Decrypted PEM text for TLS. */
export interface ConnectionSslSecrets {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/**
 * Decrypted credentials a host hands its connectors. On a descriptor they are a non-enumerable,
 * frozen copy whose `toJSON` and `util.inspect` render `[REDACTED]`: spreads, JSON and loggers
 * never see them, and the engine never hands them to a connection store.
 */
export interface ConnectionSecrets {
  readonly password?: string;
  readonly ssl?: ConnectionSslSecrets;
}

/**
 * A connection. `hostAttributes` and `secrets` are round-tripped to connectors but never
 * serialised (both are non-enumerable).
 */
export interface ConnectionDescriptor {
  readonly id?: string;
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly schema?: string;
  readonly userName: string;
  readonly sslMode?: string;
  readonly keyVersion?: number;
  readonly hostAttributes?: HostAttributes;
  readonly secrets?: ConnectionSecrets;
}

export interface ConnectionInputFields {
  configName: string;
  type: string;
  host: string;
  port: number;
  databaseName: string;
  schema?: string;
  userName: string;
  sslMode?: string;
  hostAttributes?: HostAttributes;
  password?: string;
}

const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

/**
 * Input for creating a connection. The password lives in a private field: `toJSON()` and
 * `util.inspect` show `[REDACTED]` (or `""` when there is none), so no logger can print it.
 */
export class ConnectionInput {
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly schema?: string;
  readonly userName: string;
  readonly sslMode?: string;
  readonly hostAttributes?: HostAttributes;
  readonly #password: string;

  constructor(fields: ConnectionInputFields) {
    this.configName = fields.configName;
    this.type = fields.type;
    this.host = fields.host;
    this.port = fields.port;
    this.databaseName = fields.databaseName;
    if (fields.schema !== undefined) this.schema = fields.schema;
    this.userName = fields.userName;
    if (fields.sslMode !== undefined) this.sslMode = fields.sslMode;
    if (fields.hostAttributes !== undefined) {
      Object.defineProperty(this, 'hostAttributes', { value: fields.hostAttributes, enumerable: false });
    }
    this.#password = fields.password ?? '';
  }

  password(): string {
    return this.#password;
  }

  hasPassword(): boolean {
    return this.#password.length > 0;
  }

  toJSON(): Record<string, unknown> {
    return {
      configName: this.configName,
      type: this.type,
      host: this.host,
      port: this.port,
      databaseName: this.databaseName,
      ...(this.schema !== undefined ? { schema: this.schema } : {}),
      userName: this.userName,
      ...(this.sslMode !== undefined ? { sslMode: this.sslMode } : {}),
      password: this.hasPassword() ? '[REDACTED]' : '',
    };
  }

  [inspectCustom](): Record<string, unknown> {
    return this.toJSON();
  }
}

/** `configName` cannot change through a patch. A present `password` re-protects the secret. */
export interface ConnectionPatch {
  readonly type?: string;
  readonly host?: string;
  readonly port?: number;
  readonly databaseName?: string;
  readonly schema?: string;
  readonly userName?: string;
  readonly sslMode?: string;
  readonly hostAttributes?: HostAttributes;
  readonly password?: string;
}

/** Only ever flows from the engine to the connection store. */
export interface ProtectedCredential {
  readonly ciphertext: string;
  readonly keyVersion: number;
}

export type ColumnKind =
  | 'string'
  | 'integer'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'time'
  | 'uuid'
  | 'json'
  | 'binary'
  | 'objectId'
  | 'other';

export const COLUMN_KINDS: readonly ColumnKind[] = Object.freeze([
  'string',
  'integer',
  'decimal',
  'float',
  'boolean',
  'date',
  'datetime',
  'time',
  'uuid',
  'json',
  'binary',
  'objectId',
  'other',
]);

export interface ColumnInfo {
  readonly name: string;
  readonly kind: ColumnKind;
  readonly nativeType: string;
  /** `true` when the column admits NULL; absent means unknown. Incremental planning reads it. */
  readonly nullable?: boolean;
  /**
   * How the datasource orders this column's values. `binary`: by code point (UTF-8 bytes), the
   * order `compareUtf8` gives; `collation`: by a collation's rules. Absent means unknown. Only
   * text cursors need it: the engine refuses a `string` cursor unless it is `binary`.
   */
  readonly ordering?: 'binary' | 'collation';
}

export interface TableSchema {
  /** The normalised table key (connectors normalise; the engine compares names exactly). */
  readonly name: string;
  readonly fields: readonly string[];
  readonly columns?: readonly ColumnInfo[];
  /** The primary key's columns, in key order, when the connector knows them. */
  readonly primaryKey?: readonly string[];
}

export interface SchemaSnapshot {
  readonly configName: string;
  readonly tables: readonly TableSchema[];
  readonly capturedAt?: string;
}

export type FilterOperator = 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'in' | 'nin' | 'ne' | 'like';

export const FILTER_OPERATORS: readonly FilterOperator[] = Object.freeze([
  'eq',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'in',
  'nin',
  'ne',
  'like',
]);

export type FilterCondition = { readonly [op in FilterOperator]?: readonly unknown[] };

/** config -> table -> fields. */
export type MappedFields = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
/** config -> table -> field -> condition. Values arrive unchecked; the planner checks them. */
export type RequestFilters = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>;

/**
 * A position in a table's incremental order: the cursor value and the tie-breaker value of the last
 * row reached, in the JSON-safe form `result.cursors` reports and `after` accepts verbatim (integers
 * as digit strings, date-times as ISO UTC text, see the README's "Incremental extraction").
 * `value` is `null` only for a `nulls: "first"` cursor still inside its NULL rows.
 */
export type PositionValue = string | number | boolean;

export interface CursorPosition {
  readonly value: PositionValue | null;
  readonly key: PositionValue;
}

/** One table's incremental choice, as a request states it (values unchecked until planning). */
export interface IncrementalTableRequest {
  readonly cursorField: string;
  /** A unique, non-null field; defaults to the table's single-column primary key. */
  readonly tieBreaker?: string;
  /** Rows strictly after this position; absent or `null`: from the start. */
  readonly after?: CursorPosition | null;
  /** At most this many rows of this table (a positive integer). */
  readonly limit?: number;
  /** Required for a nullable cursor: NULL cursors sort before every value and are read first. */
  readonly nulls?: 'first';
  /**
   * Re-read this far behind `after` for rows that arrived late, in the cursor's unit (numbers;
   * days for a date; seconds for a date-time). Rows inside the window may come again.
   */
  readonly lag?: number | string;
}

/** config -> table -> incremental choice. */
export type RequestIncremental = Readonly<Record<string, Readonly<Record<string, IncrementalTableRequest>>>>;

/** Kinds a cursor or tie-breaker may have: the ones whose order the engine itself can check. */
export type OrderableKind = 'integer' | 'decimal' | 'float' | 'date' | 'datetime' | 'uuid' | 'objectId' | 'string';

/** One table's incremental choice in a plan: checked, with the kinds the values are read as. */
export interface PlannedIncremental {
  readonly cursorField: string;
  readonly cursorKind: OrderableKind;
  readonly tieBreaker: string;
  readonly tieBreakerKind: OrderableKind;
  readonly after?: CursorPosition;
  readonly limit?: number;
  readonly nulls?: 'first';
  /** As requested; checked against the cursor kind. */
  readonly lag?: number | string;
}

/**
 * One table's incremental query, as a connector receives it. A connector that declares
 * `supportsIncremental` MUST return exactly the rows with `(cursor, tieBreaker) > after` (NULL
 * cursors first when `nulls` is `first`; no NULL cursor otherwise can be after a value), ordered by
 * `(cursor, tieBreaker)` ascending, text by code point (`COLLATE "C"`, a binary collation), at most
 * `limit` of them. Values are in `normaliseFilterValue` form for their kinds (integers as bigint).
 * With `from` (a `lag` window), it returns instead the rows with a non-NULL cursor `>= from`, in
 * the same order and limit, and ignores `after`, which then only keeps the reported position from
 * moving back.
 */
export interface IncrementalQuery {
  readonly cursorField: string;
  readonly cursorKind: OrderableKind;
  readonly tieBreaker: string;
  readonly tieBreakerKind: OrderableKind;
  readonly after?: { readonly value: FilterBound | null; readonly key: FilterBound };
  readonly limit?: number;
  readonly nulls?: 'first';
  /** The first cursor value of a `lag` window; set only with an `after` whose value is not NULL. */
  readonly from?: FilterBound;
}

/** A normalised bound (`normaliseFilterValue`'s result): bigint, exact text, number or boolean. */
export type FilterBound = string | number | boolean | bigint;

export interface ExtractionRequest {
  readonly mappedFields: MappedFields;
  readonly filters?: RequestFilters;
  /** Tables to extract incrementally; each must also be in `mappedFields`. */
  readonly incremental?: RequestIncremental;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly overrides?: Partial<Limits>;
}

/** One datasource's query, as a connector receives it: fields sorted, `*` already expanded. */
export interface QueryRequest {
  readonly configName: string;
  /** table -> sorted fields. Tables are queried in ascending key order. */
  readonly tables: Readonly<Record<string, readonly string[]>>;
  readonly filters?: Readonly<Record<string, Readonly<Record<string, FilterCondition>>>>;
  /** table -> incremental query; only for a connector that declares `supportsIncremental`. */
  readonly incremental?: Readonly<Record<string, IncrementalQuery>>;
}

export interface PlanStep {
  readonly ordinal: number;
  readonly configName: string;
  readonly tables: readonly string[];
  readonly fields: Readonly<Record<string, readonly string[]>>;
  readonly filters?: Readonly<Record<string, Readonly<Record<string, FilterCondition>>>>;
  readonly incremental?: Readonly<Record<string, PlannedIncremental>>;
}

export type ExecutionMode = 'auto' | 'direct' | 'store';

export interface ExtractionPlan {
  readonly tenantId: string;
  requestId?: string;
  readonly steps: readonly PlanStep[];
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly limits: Limits;
  mode: ExecutionMode;
}

export type ExecutionStatus = 'pending' | 'running' | 'completed' | 'failed' | 'canceled';

export interface ExecutionState {
  readonly jobId?: string;
  readonly status: ExecutionStatus;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly failureMessage?: string;
}

export interface DirectResult {
  readonly data: Uint8Array;
  readonly format: 'json';
  readonly rowCount: number;
  readonly plaintextSize: number;
  readonly integrity: { readonly algorithm: 'SHA-256'; readonly digest: string };
  readonly protection: { readonly encrypted: false; readonly appliedBy: 'engine' };
  readonly completedAt: string;
}

export type ProtectionAppliedBy = 'engine' | 'adapter' | 'host';

export interface ResultIntegrity {
  readonly algorithm: string;
  readonly digest?: string;
  readonly signature?: string;
}

export interface ResultProtection {
  readonly encrypted: boolean;
  readonly keyVersion?: number;
  readonly mode?: string;
  readonly appliedBy: ProtectionAppliedBy;
}

export interface ResultReference {
  readonly path: string;
  readonly format: 'json';
  readonly rowCount: number;
  readonly sizeBytes: number;
  readonly integrity?: ResultIntegrity;
  readonly protection?: ResultProtection;
  readonly completedAt: string;
}

export interface ExtractionResult {
  readonly state: ExecutionState;
  readonly direct?: DirectResult;
  readonly reference?: ResultReference;
  /** config -> rows written. */
  readonly rowCounts: Readonly<Record<string, number>>;
  /**
   * Only when the plan has incremental tables: config -> table -> the last position reached, to
   * pass verbatim as the next request's `after`. A table without new rows keeps the `after` it was
   * given; `null` when it had neither rows nor an `after`.
   */
  readonly cursors?: Readonly<Record<string, Readonly<Record<string, CursorPosition | null>>>>;
}

/** Rows pulled from a cursor before a step hands a chunk to the writer. */
export const STREAM_BATCH_ROWS = 256;

export interface SchemaValidationTable {
  readonly name: string;
  readonly fields: readonly string[];
  readonly filterFields?: readonly string[];
}

export interface SchemaValidationRequest {
  readonly datasources: readonly { readonly configName: string; readonly tables: readonly SchemaValidationTable[] }[];
}

export type ValidationFailureType =
  | 'datasource_not_found'
  | 'table_not_found'
  | 'field_not_found'
  | 'invalid_filter'
  | 'limit_exceeded';

export interface ValidationFailure {
  readonly type: ValidationFailureType;
  readonly configName?: string;
  readonly table?: string;
  readonly field?: string;
  readonly message: string;
}

export interface SchemaValidationReport {
  readonly valid: boolean;
  readonly failures: readonly ValidationFailure[];
}

export interface ListPagedQuery {
  readonly filter?: Readonly<Record<string, unknown>>;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

export interface OperationOptions {
  readonly signal?: AbortSignal;
}
