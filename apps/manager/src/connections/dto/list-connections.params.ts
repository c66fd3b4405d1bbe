import { Errors } from '../../errors/catalogue';
import type { ConnectionListFilter } from '../../ports/connection-repository.port';

export interface ListParams {
  readonly page: number;
  readonly limit: number;
  readonly sortOrder: 'asc' | 'desc';
  readonly filter: ConnectionListFilter;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INTEGER = /^[+-]?\d+$/;
const KNOWN = new Set(['page', 'limit', 'sortOrder', 'startDate', 'endDate', 'type', 'host', 'databaseName', 'cursor']);

/**
 * Query parameters of the list routes, checked in a fixed order. Empty values are ignored; every
 * refusal names the parameter (never the literal placeholder the original printed).
 */
export function readListParams(query: Readonly<Record<string, unknown>>, maxLimit: number): ListParams {
  const value = (key: string): string | undefined => {
    const raw = query[key];
    const text = Array.isArray(raw) ? (raw[0] as unknown) : raw;
    return typeof text === 'string' && text !== '' ? text : undefined;
  };

  const page = readPositive(value('page'), 'page');
  const limit = readPositive(value('limit'), 'limit') ?? 10;
  if (limit > maxLimit) throw Errors.paginationLimitExceeded(maxLimit);

  const sortText = value('sortOrder')?.toLowerCase() ?? 'desc';
  if (sortText !== 'asc' && sortText !== 'desc') throw Errors.invalidSortOrder();

  const start = readDate(value('startDate'));
  const end = readDate(value('endDate'));
  if (start && end && start.getTime() > end.getTime()) throw Errors.invalidFinalDate();

  // A map without a prototype: on `{}`, `metadata.__proto__=x` set nothing and the filter vanished.
  const metadata: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(query)) {
    const text = value(key);
    if (text === undefined) continue;
    if (key.startsWith('metadata.')) {
      const name = key.slice('metadata.'.length);
      if (!isMetadataKey(name)) throw Errors.invalidQueryParameter(key.slice(0, 64).replaceAll('\u0000', ''));
      metadata[name] = text;
    }
  }

  const cursor = value('cursor');
  if (cursor !== undefined && !isCursor(cursor)) throw Errors.invalidQueryParameter('cursor');

  for (const key of Object.keys(query)) {
    if (KNOWN.has(key) || key.startsWith('metadata.')) continue;
    const text = value(key);
    if (text === undefined) continue;
    if (key.startsWith('$') || key.startsWith('_') || key.length > 64 || text.length > 256) throw Errors.invalidQueryParameter(key.slice(0, 64));
  }

  const type = value('type')?.toUpperCase();
  const host = value('host');
  const databaseName = value('databaseName');
  return {
    page: page ?? 1,
    limit,
    sortOrder: sortText,
    filter: {
      ...(type ? { type } : {}),
      ...(host ? { host } : {}),
      ...(databaseName ? { databaseName } : {}),
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(start ? { createdFrom: start } : {}),
      // endDate covers its whole day (UTC): everything before the next midnight.
      ...(end ? { createdBefore: new Date(end.getTime() + 86_400_000) } : {}),
    },
  };
}

/**
 * `$` would be a query operator; U+0000 ends a BSON key; `__proto__` is no key a stored connection
 * can be found by (parsers and BSON decoders take it for the prototype). All three are refused.
 */
function isMetadataKey(name: string): boolean {
  return name !== '' && !name.includes('$') && !name.includes('\u0000') && name.split('.').every((part) => part !== '__proto__');
}

function readPositive(text: string | undefined, name: 'page' | 'limit'): number | undefined {
  if (text === undefined) return undefined;
  if (!INTEGER.test(text) || !Number.isSafeInteger(Number(text))) throw Errors.invalidQueryParameter(name);
  const n = Number(text);
  if (n < 1) throw Errors.invalidQueryParameter(`${name} must be greater than 0`);
  return n;
}

/** `YYYY-MM-DD` naming a real calendar day, as UTC midnight. */
function readDate(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const match = DATE.exec(text);
  if (!match) throw Errors.invalidDateFormat();
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) throw Errors.invalidDateFormat();
  return date;
}

function isCursor(text: string): boolean {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
    return typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded) && 'id' in decoded && 'points_next' in decoded;
  } catch {
    return false;
  }
}
