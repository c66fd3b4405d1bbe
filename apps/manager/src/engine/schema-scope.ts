import { AsyncLocalStorage } from 'node:async_hooks';

/** A requested discovery scope: the schema names for the connector and the cache's hash field. */
export interface RequestedScope {
  readonly schemas: readonly string[];
  /** Sorted, comma-joined schema names; `-` for the type's default scope. */
  readonly field: string;
}

/**
 * The schema scope a validate-schema request asks for, per config name. The engine's ports take a
 * config name only, so the scope reaches the connection store (which puts it on the descriptor for
 * the connector) and the schema cache (which keys entries by it) through this request-local
 * context. Without one (GET /schema, job planning) the connection's own schema applies and the
 * cache is bypassed, because it could not tell which scope an entry holds.
 */
const scopes = new AsyncLocalStorage<ReadonlyMap<string, RequestedScope>>();

export function withSchemaScopes<T>(byConfigName: ReadonlyMap<string, RequestedScope>, work: () => Promise<T>): Promise<T> {
  return scopes.run(byConfigName, work);
}

export function requestedScope(configName: string): RequestedScope | undefined {
  return scopes.getStore()?.get(configName);
}

const DEFAULT_SCHEMA: Readonly<Record<string, string>> = { POSTGRESQL: 'public', SQL_SERVER: 'dbo' };

/**
 * The scope for a datasource of `type` from the schema parts of its requested table keys (keys
 * already normalised, so a default-schema prefix is gone): the distinct parts, plus the type's
 * default when a key has none. MySQL and MongoDB have no scope.
 */
export function scopeFor(type: string, schemaParts: readonly (string | undefined)[]): RequestedScope {
  const upper = type.toUpperCase();
  if (upper === 'MYSQL' || upper === 'MONGODB') return { schemas: [], field: '-' };
  const fallback = DEFAULT_SCHEMA[upper];
  const names = new Set<string>();
  for (const part of schemaParts) {
    if (part !== undefined) names.add(upper === 'ORACLE' ? part.toUpperCase() : part);
    else if (fallback !== undefined) names.add(fallback);
  }
  const schemas = [...names].sort();
  const onlyDefault = schemas.length === 0 || (schemas.length === 1 && schemas[0] === fallback);
  return { schemas, field: onlyDefault ? '-' : schemas.join(',') };
}
