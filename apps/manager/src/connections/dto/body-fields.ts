import { Errors } from '../../errors/catalogue';

/**
 * Typed reads of known body fields for the parse stage: `null` counts as absent, and a wrong JSON
 * type is 400/FET-0001 "unable to parse request body" (reason `wrong_type`, `field` its path) before
 * any validation runs. `path` names a nested field (`ssl.mode`).
 */
export function optionalString(body: Record<string, unknown>, key: string, path = key): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw Errors.parseFailed('wrong_type', path);
  return value;
}

/** An integer field: a fraction or a non-number does not parse. */
export function optionalInteger(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw Errors.parseFailed('wrong_type', key);
  return value;
}

export function optionalObject(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw Errors.parseFailed('wrong_type', key);
  return value as Record<string, unknown>;
}
