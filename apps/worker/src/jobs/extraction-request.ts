import { normaliseTableKey, parseDatasourceType, type DatasourceType } from '@fetcher/connectors';
import { incrementalInEngineKeys } from '@fetcher/contracts';
import type { ExtractionRequest, RequestIncremental } from '@fetcher/engine';
import type { JobRequest } from './job-message';

const SCOPED_DEFAULT: Partial<Record<DatasourceType, string>> = { POSTGRESQL: 'public', SQL_SERVER: 'dbo' };

/**
 * The engine request for a job: table keys normalised per datasource type (in fields and filters),
 * Oracle field names upper-cased, tables that normalise to the same key merged (union of fields,
 * first seen first). Datasources of unknown type keep their keys; the planner reports them.
 */
export function extractionRequest(
  request: JobRequest,
  metadata: Readonly<Record<string, unknown>>,
  types: ReadonlyMap<string, string>,
): ExtractionRequest {
  // Maps without a prototype: request names such as `__proto__` are plain keys in them.
  const mappedFields = dictionary<Record<string, string[]>>();
  for (const [config, tables] of Object.entries(request.mappedFields)) {
    const type = parseDatasourceType(types.get(config) ?? '');
    const out = dictionary<string[]>();
    for (const [rawKey, fields] of Object.entries(tables)) {
      const key = type ? normaliseTableKey(type, rawKey) : rawKey;
      const names = (fields ?? []).map((f) => (type === 'ORACLE' && f !== '*' ? f.toUpperCase() : f));
      const merged = out[key] ?? [];
      for (const name of names) if (!merged.includes(name)) merged.push(name);
      out[key] = merged;
    }
    mappedFields[config] = out;
  }
  const filters = normaliseFilters(request.filters, types);
  const incremental = request.incremental
    ? (incrementalInEngineKeys(request.incremental, (config, table) => tableKey(types, config, table), (config) => parseDatasourceType(types.get(config) ?? '') === 'ORACLE') as RequestIncremental)
    : undefined;
  return { mappedFields, ...(filters ? { filters } : {}), ...(incremental ? { incremental } : {}), metadata: { ...metadata } };
}

function tableKey(types: ReadonlyMap<string, string>, config: string, table: string): string {
  const type = parseDatasourceType(types.get(config) ?? '');
  return type ? normaliseTableKey(type, table) : table;
}

function normaliseFilters(filters: JobRequest['filters'], types: ReadonlyMap<string, string>): ExtractionRequest['filters'] {
  if (!filters) return undefined;
  const out = dictionary<Record<string, Record<string, unknown>>>();
  for (const [config, tables] of Object.entries(filters)) {
    // A level that is not an object is passed on as it is, for the planner to refuse (it names the filter).
    if (typeof tables !== 'object' || tables === null || Array.isArray(tables)) {
      out[config] = tables as Record<string, Record<string, unknown>>;
      continue;
    }
    const type = parseDatasourceType(types.get(config) ?? '');
    const byTable = dictionary<Record<string, unknown>>();
    for (const [rawKey, fields] of Object.entries(tables as Record<string, unknown>)) {
      const key = type ? normaliseTableKey(type, rawKey) : rawKey;
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
        byTable[key] = fields as Record<string, unknown>;
        continue;
      }
      const target = (byTable[key] ??= dictionary<unknown>());
      for (const [field, condition] of Object.entries(fields as Record<string, unknown>)) {
        target[type === 'ORACLE' ? field.toUpperCase() : field] = condition;
      }
    }
    out[config] = byTable;
  }
  return out;
}

/** A name-keyed map without a prototype: `__proto__` and `constructor` are ordinary keys in it. */
function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The schemas to discover for one datasource: every schema named in its raw keys, plus the default when a key is bare. */
export function schemaScope(type: string, rawKeys: readonly string[]): string[] {
  const parsed = parseDatasourceType(type);
  if (parsed === 'MYSQL' || parsed === 'MONGODB' || parsed === undefined) return [];
  const scope: string[] = [];
  const add = (schema: string): void => {
    if (!scope.includes(schema)) scope.push(schema);
  };
  for (const key of rawKeys) {
    const parts = key.split('.');
    if (parts.length === 2) add(parts[0]);
    else if (parts.length === 3) add(parts[1]);
    else if (parts.length === 1 && SCOPED_DEFAULT[parsed]) add(SCOPED_DEFAULT[parsed]);
  }
  return parsed === 'ORACLE' ? scope.map((s) => s.toUpperCase()) : scope;
}
