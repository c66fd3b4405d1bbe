/**
 * The engine's one error type and its closed set of categories.
 *
 * Hosts map on `category` (HTTP status, DLQ reason), never on text, so adding or renaming a
 * category is a breaking change. Messages are constant texts without credentials; the few
 * documented exceptions (connector type, filter path) carry only names the caller supplied.
 */
export type ErrorCategory =
  | 'validation'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'limit_exceeded'
  | 'conflict'
  | 'unavailable'
  | 'connect'
  | 'timeout'
  | 'canceled'
  | 'internal';

export const ERROR_CATEGORIES: readonly ErrorCategory[] = Object.freeze([
  'validation',
  'not_found',
  'unauthorized',
  'forbidden',
  'limit_exceeded',
  'conflict',
  'unavailable',
  'connect',
  'timeout',
  'canceled',
  'internal',
]);

const CATEGORY_SET: ReadonlySet<string> = new Set(ERROR_CATEGORIES);

/**
 * Why a dial failed, when the connector could tell from the driver's error codes (never from its
 * text). A closed set, like the categories: hosts show it (the Manager's `reason` field) and may
 * branch on it. Only "failed to connect to datasource" errors carry one (`connect`, or `unavailable`
 * in the runner), and only when the class of failure is known.
 */
export type ConnectReason = 'authentication' | 'unknown_database' | 'refused' | 'timeout' | 'host_not_found' | 'tls';

export const CONNECT_REASONS: readonly ConnectReason[] = Object.freeze([
  'authentication',
  'unknown_database',
  'refused',
  'timeout',
  'host_not_found',
  'tls',
]);

const REASON_SET: ReadonlySet<string> = new Set(CONNECT_REASONS);

export interface EngineErrorOptions {
  /** The class of a connect failure; an unknown value is dropped rather than rendered. */
  readonly reason?: ConnectReason;
}

export class EngineError extends Error {
  readonly category: ErrorCategory;
  /** Set on `connect` errors whose class of failure the connector recognised by driver code. */
  readonly reason?: ConnectReason;
  /**
   * The underlying failure (driver, protector, store). A private field, so that neither
   * `JSON.stringify` nor a structured logger walking own properties can print a DSN or a driver
   * message that it may quote. Read it through `cause`, deliberately.
   */
  readonly #cause: unknown;

  constructor(category: ErrorCategory, message: string, cause?: unknown, options?: EngineErrorOptions) {
    super(message);
    // An unknown category (a host building one by hand) renders as internal rather than leaking
    // an unmapped value into status tables.
    this.category = CATEGORY_SET.has(category) ? category : 'internal';
    const reason = options?.reason;
    if (typeof reason === 'string' && REASON_SET.has(reason)) this.reason = reason;
    this.#cause = cause;
    this.name = 'EngineError';
  }

  override get cause(): unknown {
    return this.#cause;
  }

  override toString(): string {
    return `engine: [${this.category}] ${this.message}`;
  }

  toJSON(): { name: string; category: ErrorCategory; message: string; reason?: ConnectReason } {
    return { name: this.name, category: this.category, message: this.message, ...(this.reason ? { reason: this.reason } : {}) };
  }

  /**
   * `util.inspect` (console.log, Nest's Logger) prints an error's `cause` whenever `'cause' in
   * error` holds, which the getter above makes true. Render the category, message and stack frames
   * only, so the hidden cause never reaches a log by accident.
   */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    const frames = (this.stack ?? '').split('\n').slice(1).join('\n');
    return frames ? `${this.toString()}\n${frames}` : this.toString();
  }
}

export function isEngineError(value: unknown): value is EngineError {
  return value instanceof EngineError;
}

/**
 * The connect reason of `error` or of the first EngineError in its cause chain that has one: the
 * engine re-makes a connector's error with its own fixed text and keeps the original as the cause.
 */
export function connectReasonOf(error: unknown): ConnectReason | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current instanceof Error; depth++) {
    if (current instanceof EngineError && current.reason) return current.reason;
    current = current.cause;
  }
  return undefined;
}

/** Options that carry `error`'s connect reason over to the engine's own re-made error. */
export function keptReason(error: unknown): EngineErrorOptions {
  const reason = connectReasonOf(error);
  return reason ? { reason } : {};
}

/** Fixed texts. Hosts and tests compare against these constants, never against ad-hoc strings. */
export const ErrorText = Object.freeze({
  registryRequired: 'connector registry is required',
  protectorRequired: 'credential protector is required when encrypted persistence is enabled',
  tenantInvalid: 'tenant id is invalid',
  tenantRequired: 'tenant scope is required',
  storeNotConfigured: 'connection store is not configured',
  connectionExists: 'connection already exists',
  connectionNotFound: 'connection not found',
  protectFailed: 'failed to protect connection credential',
  activeCheckFailed: 'failed to check for active executions',
  activeExecutions: 'connection has active executions',
  buildFailed: 'failed to build connector for connection',
  connectFailed: 'failed to connect to datasource',
  discoverFailed: 'failed to discover datasource schema',
  queryFailed: 'failed to query datasource',
  persistFailed: 'failed to persist extraction result',
  resultTooLarge: 'extraction result exceeds the configured size limit',
  deadline: 'execution exceeded its deadline',
  canceled: 'execution canceled',
  serializeFailed: 'failed to serialize extraction result',
  stepUnexpected: 'extraction step failed unexpectedly',
  storeModeNeedsSink: 'store mode requires a configured result sink',
  appliedByInvalid: 'result protection appliedBy is invalid',
  noDatasources: 'schema validation request has no datasources',
  blankName: 'schema validation request contains a blank name',
  noMappedFields: 'extraction request has no mapped fields',
  noTables: 'extraction datasource selects no tables',
  blankConfigName: 'extraction request has a blank datasource config name',
  unknownDatasource: 'extraction references an unknown datasource connection',
  tooManyDatasources: 'datasource count exceeds the configured maximum: limits.maxDatasources',
  schemaValidationFailed: 'extraction request failed schema validation',
  invalidRequest: 'extraction request is invalid',
  invalidInput: 'connection input is invalid',
  invalidPatch: 'connection patch is invalid',
  invalidConfigName: 'connection config name is invalid',
  invalidConnectionId: 'connection id is invalid',
  invalidListQuery: 'connection list query is invalid',
  storeFailed: 'connection store operation failed',
  invalidPlan: 'extraction plan is invalid',
  invalidSchemaRequest: 'schema validation request is invalid',
  noFields: 'extraction table selects no fields',
  invalidOperationOptions: 'operation options are invalid',
  requestIdInvalid: 'request id is invalid',
  encryptedFlagInvalid: 'encryptedPersistence must be a boolean',
  clockInvalid: 'clock must be a function',
  limitsInvalid: 'limits must be an object',
  executionStoreUnavailable: 'execution store unavailable',
  unexpected: 'engine operation failed unexpectedly',
} as const);

/** "no connector registered for datasource type <type>": the one text that carries the type. */
export function noConnectorText(type: string): string {
  return `no connector registered for datasource type ${type}`;
}

/** "<port name> is misconfigured": a provided port object that lacks one of its methods. */
export function misconfiguredText(port: string): string {
  return `${port} is misconfigured`;
}

/** "<port name> is not configured": an operation needs a port the engine was built without. */
export function notConfiguredText(port: string): string {
  return `${port} is not configured`;
}

/** "limits.<name> must be a positive integer" (construction). */
export function limitNotPositiveText(name: string): string {
  return `limits.${name} must be a positive integer`;
}

/** "limit override exceeds the configured maximum: limits.<name>" (`timeout` names timeoutMs). */
export function overrideExceedsText(name: string): string {
  return `limit override exceeds the configured maximum: limits.${name}`;
}

/** "limit override is invalid: limits.<name>": not a number, or a limit that cannot be overridden. */
export function overrideInvalidText(name: string): string {
  return `limit override is invalid: limits.${name}`;
}

/** "filter value does not match the column type: <config>.<table>.<field>". */
export function filterTypeMismatchText(path: string): string {
  return `filter value does not match the column type: ${path}`;
}

/** "filter operator requires exactly one value: <config>.<table>.<field>" (gt, gte, lt, lte). */
export function filterSingleValueText(path: string): string {
  return `filter operator requires exactly one value: ${path}`;
}

/** "filter operator requires a list of values: <config>.<table>.<field>": an operator whose value is not an array. */
export function filterListText(path: string): string {
  return `filter operator requires a list of values: ${path}`;
}

/** At most this many schema failures are named in one message; the rest are counted. */
const NAMED_FAILURES = 10;

/**
 * "extraction request failed schema validation: <what>: <config>.<table>[.<field>]; ...": the planner's
 * refusal, naming every failure of the report (the first ten, then "and N more"). Names only: the
 * caller's own datasource, table and field names, never anything read from a datasource.
 */
export function schemaValidationFailedText(failures: readonly { message: string; configName?: string; table?: string; field?: string }[]): string {
  const named = failures.slice(0, NAMED_FAILURES).map((f) => {
    const path = [f.configName, f.table, f.field].filter((part) => part !== undefined).join('.');
    return path === '' ? f.message : `${f.message}: ${path}`;
  });
  const more = failures.length > NAMED_FAILURES ? `; and ${failures.length - NAMED_FAILURES} more` : '';
  return named.length === 0 ? ErrorText.schemaValidationFailed : `${ErrorText.schemaValidationFailed}: ${named.join('; ')}${more}`;
}

/** "extraction references an unknown datasource connection: <name>, <name>". */
export function unknownDatasourceText(configNames: readonly string[]): string {
  return configNames.length === 0 ? ErrorText.unknownDatasource : `${ErrorText.unknownDatasource}: ${configNames.join(', ')}`;
}

/** "invalid filter: <problem>; <problem>": the planner's refusal of malformed filters (see `filterProblems`). */
export function invalidFilterText(problems: readonly string[]): string {
  return `invalid filter: ${problems.join('; ')}`;
}

/** "filter operator is not supported: <config>.<table>.<field>": a condition key outside eq, gt, ... like. */
export function filterOperatorText(path: string): string {
  return `filter operator is not supported: ${path}`;
}

/**
 * Why an incremental request or run was refused (all `validation`). The text is
 * "<reason>: <config>.<table>[.<field>]", built by `incrementalText`; the names are the caller's own.
 */
export const IncrementalText = Object.freeze({
  invalid: 'incremental request is invalid',
  notMapped: 'incremental table is not in mappedFields',
  cursorNotFound: 'incremental cursor field not found in table schema',
  tieBreakerNotFound: 'incremental tie-breaker field not found in table schema',
  noTieBreaker: 'incremental table has no tie-breaker (name a unique tieBreaker or use a table with a single-column primary key)',
  notOrderable: 'incremental field type cannot be ordered',
  collationOrder: 'incremental text field is ordered by a collation, not by code point',
  nullableCursor: 'incremental cursor field is nullable and nulls "first" was not chosen',
  nullableTieBreaker: 'incremental tie-breaker field is nullable',
  afterInvalid: 'incremental after does not match the column types',
  limitInvalid: 'incremental limit must be a positive integer',
  lagInvalid: 'incremental lag must be a non-negative number in the cursor unit (whole for integer and date cursors)',
  lagNotApplicable: 'incremental lag needs a numeric, date or date-time cursor',
  unsupported: 'datasource type does not support incremental extraction',
  nullCursorValue: 'incremental cursor value is null and nulls "first" was not chosen',
  nullTieBreakerValue: 'incremental tie-breaker value is null',
  notUnique: 'incremental rows repeat a (cursor, tie-breaker) position: the tie-breaker is not unique',
} as const);

export type IncrementalRefusal = (typeof IncrementalText)[keyof typeof IncrementalText];

/** "<reason>: <path>", path being `<config>.<table>` or `<config>.<table>.<field>`. */
export function incrementalText(reason: IncrementalRefusal, path: string): string {
  return `${reason}: ${path}`;
}

/** Messages of schema validation report entries (stable texts: hosts show them, never branch on them). */
export const ValidationText = Object.freeze({
  datasourceNotFound: 'no connection configured for the requested datasource',
  tableNotFound: 'table not found in datasource schema',
  fieldNotFound: 'field not found in table schema',
  invalidFilter: 'filter references a field not found in table schema',
  datasourceLimit: 'datasource count exceeds the configured limit',
  tableLimit: 'table count exceeds the configured limit',
  fieldLimit: 'field count exceeds the configured limit',
  filterLimit: 'filter count exceeds the configured limit',
} as const);
