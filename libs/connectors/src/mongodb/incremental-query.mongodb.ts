/**
 * The keyset part of an incremental read on MongoDB: `{$or: [{c: {$gt: v}}, {c: v, k: {$gt: key}}]}`,
 * sorted `{c: 1, k: 1}` with the limit; a `lag` window is `{c: {$gte: from}}`. Ascending order puts null and missing values first, which is
 * what `nulls: "first"` asks for; inside them the bound is `{$or: [{c: null, k: {$gt: key}}, {c: {$ne:
 * null}}]}` (`c: null` matches a missing field too). No collation is sent: strings then compare by
 * code point, the order the engine checks positions in.
 */
import type { Document } from 'mongodb';
import type { IncrementalQuery } from '@fetcher/engine';
import { coerceValue } from './filter-document.mongodb';

export interface MongoKeyset {
  /** `{}` without an `after`. */
  readonly filter: Document;
  readonly sort: Document;
  readonly limit?: number;
}

export function mongoKeyset(query: IncrementalQuery, path: string): MongoKeyset {
  const c = query.cursorField;
  const k = query.tieBreaker;
  const sort = own([[c, 1], [k, 1]]);
  const limit = query.limit === undefined ? {} : { limit: query.limit };
  if (query.from !== undefined) {
    // A lag window: `$gte` matches no null or missing cursor, and `after` is not bound.
    return { filter: own([[c, { $gte: coerceValue(query.cursorKind, query.from, `${path}.${c}`) }]]), sort, ...limit };
  }
  const after = query.after;
  if (after === undefined) return { filter: {}, sort, ...limit };
  const key = coerceValue(query.tieBreakerKind, after.key, `${path}.${k}`);
  if (after.value === null) {
    return { filter: { $or: [own([[c, null], [k, { $gt: key }]]), own([[c, { $ne: null }]])] }, sort, ...limit };
  }
  const value = coerceValue(query.cursorKind, after.value, `${path}.${c}`);
  return { filter: { $or: [own([[c, { $gt: value }]]), own([[c, value], [k, { $gt: key }]])] }, sort, ...limit };
}

/** A document with these own keys, in this order (a field named `__proto__` stays a plain key). */
function own(entries: readonly (readonly [string, unknown])[]): Document {
  const document: Document = {};
  for (const [key, value] of entries) Object.defineProperty(document, key, { value, writable: true, enumerable: true, configurable: true });
  return document;
}
