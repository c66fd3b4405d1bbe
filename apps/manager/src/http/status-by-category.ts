import type { AppErrorCategory } from '../errors/app-error';

/**
 * The only table that knows HTTP statuses. A Record, so a new category does not compile until
 * somebody decides its status here. Validation is 400 whatever FET code it carries (FET-1014,
 * FET-1061, ... are 400 although some older documents say otherwise).
 */
export const STATUS_BY_CATEGORY: Readonly<Record<AppErrorCategory, number>> = Object.freeze({
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  limit_exceeded: 429,
  connect: 500,
  internal: 500,
  timeout: 500,
  canceled: 500,
  unavailable: 503,
});
