import { Errors } from '../../errors/catalogue';

/**
 * Typed reads of known body fields for the parse stage: `null` counts as absent, and a wrong JSON
 * type is 400/FET-0001 "unable to parse request body" before any validation runs.
 */
export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw Errors.parseFailed();
  return value;
}

/** An integer field: a fraction or a non-number does not parse. */
export function optionalInteger(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw Errors.parseFailed();
  return value;
}

export function optionalObject(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw Errors.parseFailed();
  return value as Record<string, unknown>;
}
