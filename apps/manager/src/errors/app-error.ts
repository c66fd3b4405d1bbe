import type { ErrorCategory } from '@fetcher/engine';

/**
 * The categories the HTTP layer maps to statuses: the engine's closed set plus the few outcomes
 * only the Manager produces (a 422 schema report, a body over the size limit).
 */
export type AppErrorCategory = ErrorCategory | 'unprocessable' | 'payload_too_large';

/** `fet`: a string FET code (E1, E2, E7). `numeric`: the HTTP status as a number (E3, kept for /test and /schema). */
export type ErrorDialect = 'fet' | 'numeric';

export interface AppErrorDetails {
  /** E2 field problems, keyed by JSON name (shape pass) or stored name (domain pass). */
  readonly fields?: Readonly<Record<string, string>>;
  /** E2 domain pass only. */
  readonly entityType?: string;
  /** E7 validate-schema report. */
  readonly errors?: readonly Readonly<Record<string, string>>[];
  /** Response headers the contract adds (Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly dialect?: ErrorDialect;
  /** The class of a failed dial (authentication, refused, ...) or of a parse failure: closed sets, never driver text. */
  readonly reason?: string;
  /** The body field a parse failure is about (`port`, `ssl.mode`). */
  readonly field?: string;
}

/**
 * An error with the contract's code, title and message. Only `catalogue.ts` builds one, so every
 * text on the wire lives in one file; only the HTTP layer turns the category into a status.
 */
export class AppError extends Error {
  readonly category: AppErrorCategory;
  readonly code: string;
  readonly title: string;
  readonly dialect: ErrorDialect;
  readonly fields?: Readonly<Record<string, string>>;
  readonly entityType?: string;
  readonly errors?: readonly Readonly<Record<string, string>>[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly reason?: string;
  readonly field?: string;

  constructor(category: AppErrorCategory, code: string, title: string, message: string, details: AppErrorDetails = {}) {
    super(message);
    this.name = 'AppError';
    this.category = category;
    this.code = code;
    this.title = title;
    this.dialect = details.dialect ?? 'fet';
    if (details.fields) this.fields = details.fields;
    if (details.entityType) this.entityType = details.entityType;
    if (details.errors) this.errors = details.errors;
    if (details.headers) this.headers = details.headers;
    if (details.reason) this.reason = details.reason;
    if (details.field) this.field = details.field;
  }
}
