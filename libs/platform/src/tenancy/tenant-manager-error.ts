/**
 * Why a tenant-manager call failed. Callers branch on `reason` or `category`, never on the message:
 * - `tenant_not_found`: 404 on `/connections`.
 * - `tenant_suspended`, `tenant_purged`: 403 whose body names a status (`tenantStatus` has it; any
 *   status other than `purged` counts as suspended).
 * - `access_denied`: 403 without a readable status.
 * - `circuit_open`: the breaker refused the call; nothing was sent.
 * - `unreachable`, `timeout`: no answer (refused, reset, DNS, the body broke off, or the time limit).
 * - `server_error`: a 5xx answer.
 * - `unexpected_status`: any other non-200 answer below 500 (400, 401 for a wrong API key, 429, ...).
 * - `bad_response`: a 200 whose body is not the documented shape, or is larger than the size cap.
 * - `closed`: the client was closed.
 */
export type TenantManagerErrorReason =
  | 'tenant_not_found'
  | 'tenant_suspended'
  | 'tenant_purged'
  | 'access_denied'
  | 'circuit_open'
  | 'unreachable'
  | 'timeout'
  | 'server_error'
  | 'unexpected_status'
  | 'bad_response'
  | 'closed';

/** The engine's category names, so hosts map these errors with the same table as every other. */
export type TenantManagerErrorCategory = 'not_found' | 'forbidden' | 'unavailable' | 'internal';

const CATEGORY: Readonly<Record<TenantManagerErrorReason, TenantManagerErrorCategory>> = {
  tenant_not_found: 'not_found',
  tenant_suspended: 'forbidden',
  tenant_purged: 'forbidden',
  access_denied: 'forbidden',
  circuit_open: 'unavailable',
  unreachable: 'unavailable',
  timeout: 'unavailable',
  server_error: 'unavailable',
  closed: 'unavailable',
  unexpected_status: 'internal',
  bad_response: 'internal',
};

const MESSAGE: Readonly<Record<TenantManagerErrorReason, string>> = {
  tenant_not_found: 'tenant not found',
  tenant_suspended: 'tenant service is suspended',
  tenant_purged: 'tenant service is purged',
  access_denied: 'tenant service access denied',
  circuit_open: 'tenant manager circuit breaker is open: service temporarily unavailable',
  unreachable: 'tenant manager unreachable',
  timeout: 'tenant manager did not answer in time',
  server_error: 'tenant manager failed',
  closed: 'tenant manager client is closed',
  unexpected_status: 'tenant manager refused the request',
  bad_response: 'tenant manager returned an unreadable response',
};

export interface TenantManagerErrorDetails {
  readonly tenantId?: string;
  readonly service?: string;
  /** The HTTP status, when there was an answer. */
  readonly httpStatus?: number;
  /** The 403 body's `status` (`suspended`, `purged`, ...), for the suspended and purged reasons. */
  readonly tenantStatus?: string;
  /** The underlying failure; kept private because a transport error can quote the URL. */
  readonly cause?: unknown;
}

/**
 * A failed tenant-manager call. The message is a constant text per reason, plus the HTTP status where
 * there is one: never the URL, the API key or a response body.
 */
export class TenantManagerError extends Error {
  readonly category: TenantManagerErrorCategory;
  readonly tenantId?: string;
  readonly service?: string;
  readonly httpStatus?: number;
  readonly tenantStatus?: string;
  readonly #cause: unknown;

  constructor(readonly reason: TenantManagerErrorReason, details: TenantManagerErrorDetails = {}) {
    super(details.httpStatus !== undefined && (reason === 'server_error' || reason === 'unexpected_status')
      ? `${MESSAGE[reason]} (status ${details.httpStatus})`
      : MESSAGE[reason]);
    this.name = 'TenantManagerError';
    this.category = CATEGORY[reason];
    if (details.tenantId !== undefined) this.tenantId = details.tenantId;
    if (details.service !== undefined) this.service = details.service;
    if (details.httpStatus !== undefined) this.httpStatus = details.httpStatus;
    if (details.tenantStatus !== undefined) this.tenantStatus = details.tenantStatus;
    this.#cause = details.cause;
  }

  override get cause(): unknown {
    return this.#cause;
  }

  /** Suspended or purged: the tenant exists but may not use the service; its resources should be released. */
  get tenantInactive(): boolean {
    return this.reason === 'tenant_suspended' || this.reason === 'tenant_purged';
  }

  toJSON(): { name: string; reason: TenantManagerErrorReason; category: TenantManagerErrorCategory; message: string } {
    return { name: this.name, reason: this.reason, category: this.category, message: this.message };
  }

  /** Keeps the hidden cause out of `console.log` and Nest's logger, as `EngineError` does. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `${this.name} [${this.reason}]: ${this.message}`;
  }
}
