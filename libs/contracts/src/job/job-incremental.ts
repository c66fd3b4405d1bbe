import type { CursorPosition } from '@fetcher/engine';

/**
 * A job's `incremental` request: datasource -> table -> `{cursorField, tieBreaker?, after?, limit?,
 * nulls?, lag?}`, keyed like `mappedFields`. Stored and published as the client sent it (the Manager has
 * checked it); the planner checks it again against the live schema.
 */
export type JobIncremental = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** What a completed incremental job reached: datasource -> table -> the next request's `after`. */
export type JobCursors = Readonly<Record<string, Readonly<Record<string, CursorPosition | null>>>>;

/**
 * The request's `incremental` in the engine's table keys: each table key through `tableKey` (the
 * default schema dropped, as for `mappedFields`), and for datasources where `upperCaseFields` says so
 * (Oracle) the cursor and tie-breaker names upper-cased as field names are. A level that is not an
 * object is passed on unchanged, for the planner to refuse by name.
 */
export function incrementalInEngineKeys(
  incremental: unknown,
  tableKey: (configName: string, table: string) => string,
  upperCaseFields: (configName: string) => boolean,
): unknown {
  if (!isPlainObject(incremental)) return incremental;
  const out = dictionary<unknown>();
  for (const [config, tables] of Object.entries(incremental)) {
    if (!isPlainObject(tables)) {
      out[config] = tables;
      continue;
    }
    const byTable = dictionary<unknown>();
    for (const [table, spec] of Object.entries(tables)) {
      byTable[tableKey(config, table)] = upperCaseFields(config) ? withUpperCaseNames(spec) : spec;
    }
    out[config] = byTable;
  }
  return out;
}

/** The stored `cursors` when it has the reported shape (objects of objects), else undefined. */
export function decodeCursors(value: unknown): JobCursors | undefined {
  if (!isPlainObject(value) || !Object.values(value).every(isPlainObject)) return undefined;
  return value as JobCursors;
}

function withUpperCaseNames(spec: unknown): unknown {
  if (!isPlainObject(spec)) return spec;
  const copy: Record<string, unknown> = { ...spec };
  for (const name of ['cursorField', 'tieBreaker']) {
    if (typeof copy[name] === 'string') copy[name] = copy[name].toUpperCase();
  }
  return copy;
}

/** A name-keyed map without a prototype: `__proto__` is an ordinary key in it. */
function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
