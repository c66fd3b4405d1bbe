import type { ConnectReason, FilterProblem, IncrementalProblem } from '@fetcher/engine';
import { AppError } from './app-error';

/**
 * Every error body the Manager sends, with the exact code, title and message clients key on.
 * Placeholders are always filled, and a parameter problem always names the parameter.
 */
export const Texts = Object.freeze({
  internal: 'The server encountered an unexpected error. Please try again later or contact support.',
  unavailable:
    'The server is currently unable to handle the request due to temporary overloading or maintenance of the server. Please try again later.',
  parse: 'unable to parse request body',
  emptyBody: 'empty request body',
  requiredFields: 'Some required fields are missing. Please check the listed fields and try again.',
  invalidFields: 'Some fields have invalid values. Please check the listed fields and try again.',
  duplicate:
    'An entity of type connection with the same unique attributes already exists. Please use different values to avoid conflicts and review the data provided in the request.',
  schemaInconsistent: 'Schema validation found inconsistencies.',
  databaseConnection: 'The adapter failed to connect to the target data source. Check credentials and network access.',
  schemaRetrieval: 'Failed to retrieve database schema information.',
});

export type EntityKind = 'connection' | 'job';

/**
 * Which parse failure it was (the additional `reason` field of a FET-0001 "unable to parse request
 * body"; code, title and message stay the contract's): `content_type` missing or not JSON,
 * `malformed_json` no JSON at all, `not_an_object` JSON but not an object, `out_of_bounds` a number
 * beyond the double range or nesting beyond the bound, `wrong_type` a known field of the wrong JSON
 * type (named in `field`).
 */
export const PARSE_REASONS = Object.freeze(['content_type', 'malformed_json', 'not_an_object', 'out_of_bounds', 'wrong_type'] as const);
export type ParseReason = (typeof PARSE_REASONS)[number];

export const Errors = {
  // 0xxx: generic
  parseFailed: (reason?: ParseReason, field?: string) =>
    new AppError('validation', 'FET-0001', 'Bad Request', Texts.parse, { ...(reason ? { reason } : {}), ...(field ? { field } : {}) }),
  emptyBody: () => new AppError('validation', 'FET-0001', 'Invalid payload', Texts.emptyBody),
  internal: () => new AppError('internal', 'FET-0002', 'Internal Server Error', Texts.internal),
  serviceUnavailable: () => new AppError('unavailable', 'FET-0003', 'Service Unavailable', Texts.unavailable),
  duplicateKey: () => new AppError('conflict', 'FET-0004', 'Conflict', 'Conflict'),
  notFound: () => new AppError('not_found', 'FET-0005', 'Not Found', 'Not Found'),

  /** E2: the "required" problems alone when there is one, otherwise every problem. */
  fieldProblems(problems: readonly FieldProblem[], entityType?: 'connection'): AppError {
    const required = problems.filter((p) => p.required);
    const chosen = required.length > 0 ? required : problems;
    const fields = Object.fromEntries(chosen.map((p) => [p.field, p.message]));
    return required.length > 0
      ? new AppError('validation', 'FET-0402', 'Missing Fields in Request', Texts.requiredFields, { fields, entityType })
      : new AppError('validation', 'FET-0001', 'Bad Request', Texts.invalidFields, { fields, entityType });
  },

  // 04xx: request shape
  invalidDataRequest: (message: string) => new AppError('validation', 'FET-0401', 'Invalid Data Request', message),
  invalidFilterReferences: (message: string) => new AppError('validation', 'FET-0401', 'Invalid Filter References', message),
  missingRequiredField: (message: string) => new AppError('validation', 'FET-0402', 'Missing Required Field', message),
  invalidFieldValue: (message: string) => new AppError('validation', 'FET-0402', 'Invalid Field Value', message),
  invalidHeader: (message: string) => new AppError('validation', 'FET-0403', 'Invalid header', message),
  invalidPathParameter: (entity: EntityKind) =>
    new AppError('validation', 'FET-0404', 'Invalid Path Parameter', `invalid ${entity} id`),
  invalidQueryParameter: (parameter: string) =>
    new AppError(
      'validation',
      'FET-0405',
      'Invalid Query Parameter',
      `One or more query parameters are in an incorrect format. Please check the following parameters '${parameter}' and ensure they meet the required format before trying again.`,
    ),
  paginationLimitExceeded: (max: number) =>
    new AppError(
      'validation',
      'FET-0406',
      'Pagination Limit Exceeded',
      `The pagination limit exceeds the maximum allowed of ${max} items per page. Please verify the limit and try again.`,
    ),
  invalidSortOrder: () =>
    new AppError(
      'validation',
      'FET-0407',
      'Invalid Sort Order',
      "The 'sort_order' field must be 'asc' or 'desc'. Please provide a valid sort order and try again.",
    ),
  invalidDateFormat: () =>
    new AppError(
      'validation',
      'FET-0408',
      'Invalid Date Format Error',
      "The 'initialDate', 'finalDate', or both are in the incorrect format. Please use the 'yyyy-mm-dd' format and try again.",
    ),
  invalidFinalDate: () =>
    new AppError(
      'validation',
      'FET-0409',
      'Invalid Final Date Error',
      "The 'finalDate' cannot be earlier than the 'initialDate'. Please verify the dates and try again.",
    ),
  invalidSslMode: (mode: string) =>
    new AppError(
      'validation',
      'FET-0413',
      'Invalid SSL Mode',
      `Invalid SSL mode. The provided SSL mode '${mode}' is not supported. Please use a valid SSL mode for this database type.`,
    ),
  forbiddenHost: () => new AppError('validation', 'FET-0414', 'Forbidden Host', 'Host is not a valid external database endpoint'),
  /** Filters that cannot be applied as sent; the message and each entry name the filter and what is wrong. */
  invalidFilter: (problems: readonly FilterProblem[]) =>
    new AppError('validation', 'FET-0415', 'Invalid Filter', problems.map((p) => p.message).join('; '), {
      errors: problems.map(({ configName, table, field, operator, message }) => ({
        ...(configName !== undefined ? { dataSourceId: configName } : {}),
        ...(table !== undefined ? { table } : {}),
        ...(field !== undefined ? { field } : {}),
        ...(operator !== undefined ? { operator } : {}),
        message,
      })),
    }),
  /**
   * An incremental request that cannot run as sent (its shape, or its cursor against the table's
   * schema). `reason` is the fixed text of the rule (clients may branch on it); the entry names the
   * datasource, table and field as far as the problem points.
   */
  invalidIncremental: (problem: IncrementalProblem) =>
    new AppError('validation', 'FET-0418', 'Invalid Incremental Request', problem.message, {
      errors: [
        {
          ...(problem.configName !== undefined ? { dataSourceId: problem.configName } : {}),
          ...(problem.table !== undefined ? { table: problem.table } : {}),
          ...(problem.field !== undefined ? { field: problem.field } : {}),
          reason: problem.reason,
          message: problem.message,
        },
      ],
    }),
  invalidJobListParameter: (parameter: string, expected: string) =>
    new AppError('validation', 'FET-0416', 'Invalid Job List Parameter', `The job list parameter '${parameter}' is invalid: ${expected}.`),
  invalidJobListCursor: () =>
    new AppError(
      'validation',
      'FET-0417',
      'Invalid Cursor',
      "The 'cursor' parameter is not a cursor this service issued. Pass the nextCursor of the previous page unchanged, or leave it out to start over.",
    ),

  // 10xx: domain
  entityNotFound: (entity: EntityKind) =>
    new AppError(
      'not_found',
      'FET-1001',
      'Entity Not Found',
      `It was not possible to find the ${entity} entity during the requested flow. Please review the data provided in the request.`,
    ),
  connectionConflict: () => new AppError('conflict', 'FET-1002', 'Conflict', Texts.duplicate),
  connectionNotAssigned: (name: string) =>
    new AppError(
      'validation',
      'FET-1014',
      'Connection Not Assigned',
      `Connection '${name}' has no product assigned. Use the migration endpoint to assign it first.`,
    ),
  connectionAlreadyAssigned: () =>
    new AppError(
      'conflict',
      'FET-1015',
      'Connection Already Assigned',
      'The connection is already assigned to a product and cannot be reassigned.',
    ),
  productMismatch: (name: string, source: string) =>
    new AppError(
      'validation',
      'FET-1016',
      'Product Mismatch',
      `Connection '${name}' does not belong to the product identified by source '${source}'`,
    ),
  noConnectionsFound: () =>
    new AppError('validation', 'FET-1020', 'No Connections Found', 'No connections configured for the requested datasources'),
  missingDataSource: (name: string) =>
    new AppError('validation', 'FET-1020', 'Missing Data Source', `No connection configured for datasource '${name}'`),
  jobInProgress: (action: 'update' | 'delete') =>
    new AppError('conflict', 'FET-1021', 'Job In Progress', `cannot ${action} connection with active jobs`),
  jobNotCancelable: (status: string) =>
    new AppError('conflict', 'FET-1022', 'Job Not Cancelable', `The job is already ${status} and cannot be canceled.`),
  jobNotRetryable: (status: string) =>
    new AppError('conflict', 'FET-1023', 'Job Not Retryable', `Only failed or canceled jobs can be retried; this job is ${status}.`),
  retryAlreadyActive: () =>
    new AppError('conflict', 'FET-1023', 'Job Not Retryable', 'An identical request is already pending or processing; wait for it, or cancel it first.'),
  /** `GET /v1/fetcher/{id}/result` of a job that has no result: pending, processing, failed or canceled. */
  resultNotReady: (status: string) =>
    new AppError('conflict', 'FET-1024', 'Result Not Available', `The job is ${status}; only a completed job has a result to download.`),
  /** The job completed, but its stored result is gone (expired by the storage's lifecycle rule, or deleted). */
  resultGone: () =>
    new AppError('not_found', 'FET-1025', 'Result Not Found', 'The job completed, but its stored result no longer exists (results expire after the storage retention period).'),
  /** The stored result failed its AES-GCM tag or HMAC check. Which check, and why, is never sent. */
  resultIntegrity: () =>
    new AppError('internal', 'FET-1026', 'Result Integrity Error', 'The stored result failed its integrity check and was not sent. Contact the operator.'),
  connectionDown: (name: string) =>
    new AppError('validation', 'FET-1040', 'Connection Down', `Connection '${name}' is not available`),
  schemaValidationFailed: (errors: readonly Readonly<Record<string, string>>[]) =>
    new AppError('unprocessable', 'FET-1060', 'Schema validation failed', Texts.schemaInconsistent, { errors }),
  /**
   * Job creation's refusal of tables and fields (filter fields included) that do not exist: a 400 like
   * every validation error of this route, with the contract's FET-1060 code and title, a message
   * naming each problem (the first ten, then a count) and the validate-schema report in `errors`.
   */
  jobSchemaProblems: (errors: readonly Readonly<Record<string, string>>[]) =>
    new AppError('validation', 'FET-1060', 'Schema validation failed', schemaProblemsText(errors), { errors }),
  validationLimitExceeded: (message: string) =>
    new AppError('validation', 'FET-1061', 'Validation Limit Exceeded', message),
  noConnectionsForValidation: () =>
    new AppError('validation', 'FET-1062', 'No Connections Found', 'No connections configured for the requested datasources'),

  // E3: the numeric dialect of /test and /schema (clients branch on the number).
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(
      'limit_exceeded',
      '429',
      'Rate Limit Exceeded',
      `Connection test limit reached. Try again in ${retryAfterSeconds} seconds.`,
      { dialect: 'numeric', headers: { 'Retry-After': String(retryAfterSeconds) } },
    ),
  /** `reason` (an additional field, improved): the class of failure when the driver's codes told it. */
  databaseConnectionError: (reason?: ConnectReason) =>
    new AppError('connect', '500', 'Database Connection Error', Texts.databaseConnection, { dialect: 'numeric', ...(reason ? { reason } : {}) }),
  schemaRetrievalError: () =>
    new AppError('internal', '500', 'Schema Retrieval Error', Texts.schemaRetrieval, { dialect: 'numeric' }),

  // E6: the multi-tenant guard's string codes (not FET codes; clients key on status and code).
  missingToken: () => new AppError('unauthorized', 'MISSING_TOKEN', 'Unauthorized', 'Authorization token is required'),
  invalidToken: () => new AppError('unauthorized', 'INVALID_TOKEN', 'Unauthorized', 'Authorization token is invalid'),
  missingTenant: () => new AppError('unauthorized', 'MISSING_TENANT', 'Unauthorized', 'tenantId is required in JWT token'),
  invalidTenant: () => new AppError('unauthorized', 'INVALID_TENANT', 'Unauthorized', 'tenantId has an invalid format'),
  /** The key set could not be fetched: nothing is wrong with the caller's token, so not a 401. */
  tokenKeysUnavailable: () =>
    new AppError('unavailable', 'SERVICE_UNAVAILABLE', 'Service Unavailable', 'The keys that verify authorization tokens are unavailable. Please try again later.'),
  // Step 6: the verified tenant as the tenant-manager sees it. The id is the caller's own (from its verified token).
  tenantNotFound: (tenantId: string) => new AppError('not_found', 'TENANT_NOT_FOUND', 'Not Found', `tenant not found: ${tenantId}`),
  /** `status` is the tenant-manager's word for the state (`suspended`, `purged`). */
  tenantSuspended: (status: string) => new AppError('forbidden', '0131', 'Service Suspended', `tenant service is ${status}`),
  tenantAccessDenied: () => new AppError('forbidden', '0131', 'Access Denied', 'tenant service access denied'),
  /** The tenant-manager cannot answer (down, timing out, breaker open) or the tenant's resources are not configured. */
  tenantServiceUnavailable: () => new AppError('unavailable', 'SERVICE_UNAVAILABLE', 'Service Unavailable', 'Service temporarily unavailable'),
  tenantLookupFailed: () => new AppError('internal', 'TENANT_DB_ERROR', 'Internal Server Error', 'Internal server error'),
} as const;

/** One E2 entry. `required` selects FET-0402 over FET-0001 (config-name pattern counts as required). */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
  readonly required: boolean;
}

/**
 * Codes defined by the contract but never sent (unknown fields are dropped, metadata is not
 * limited, products are not entities). Listed so the catalogue is complete.
 */
export const DEFINED_NEVER_SENT = Object.freeze({
  'FET-0400': 'Unexpected Fields in the Request',
  'FET-0410': 'Invalid Metadata Nesting',
  'FET-0411': 'Metadata Value Length Exceeded',
  'FET-0412': 'Metadata Key Length Exceeded',
  'FET-1013': 'Product Has Connections',
  'FET-1080': 'Tenant Context Required',
  'FET-1081': 'Tenant Not Found',
  'FET-1082': 'Tenant Service Unavailable',
});

/** At most this many report entries are named in a job creation's FET-1060 message; the rest are counted. */
const NAMED_SCHEMA_PROBLEMS = 10;

/** "Schema validation found inconsistencies: table 'ds.t' not found; field 'ds.t.f' not found; filter field 'ds.t.g' not found". */
function schemaProblemsText(errors: readonly Readonly<Record<string, string>>[]): string {
  const named = errors.slice(0, NAMED_SCHEMA_PROBLEMS).map((e) => {
    const path = [e.dataSourceId, e.table, e.field].filter((part) => part !== undefined).join('.');
    if (e.type === 'TABLE_NOT_FOUND') return `table '${path}' not found`;
    if (e.type === 'FIELD_NOT_FOUND') return `${e.in === 'filters' ? 'filter field' : 'field'} '${path}' not found`;
    if (e.type === 'DATA_SOURCE_DOWN') return `datasource '${path}' not available`;
    return `datasource '${path}' not found`;
  });
  const more = errors.length > NAMED_SCHEMA_PROBLEMS ? `; and ${errors.length - NAMED_SCHEMA_PROBLEMS} more` : '';
  return named.length === 0 ? Texts.schemaInconsistent : `${Texts.schemaInconsistent.replace(/\.$/, '')}: ${named.join('; ')}${more}`;
}
