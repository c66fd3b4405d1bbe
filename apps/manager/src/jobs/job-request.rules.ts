import { Errors } from '../errors/catalogue';
import { hasNulKey } from '../http/json-bounds';
import { normaliseTableKey, parseDatasourceType } from '@fetcher/connectors';
import { incrementalInEngineKeys } from '@fetcher/contracts';
import { filterProblems, IncrementalText, incrementalProblem, incrementalText, type MappedFields } from '@fetcher/engine';
import type { JobFilters, JobIncremental } from './job';

/** More datasources than this in one job are refused: each one is a connection the Worker holds open. */
export const MAX_DATASOURCES_PER_JOB = 10;

/** The required-field check, an E2 body naming `mappedFields`. */
export function requireMappedFields(mappedFields: MappedFields | undefined): MappedFields {
  if (mappedFields !== undefined) return mappedFields;
  throw Errors.fieldProblems([{ field: 'mappedFields', message: 'dataRequest.mappedFields is a required field', required: true }]);
}

/**
 * The HTTP-level shape rules of a data request. Tables and fields themselves are not checked here:
 * the Worker's planner decides those against the live schema.
 */
export function checkDataRequest(mappedFields: MappedFields): void {
  const datasources = Object.values(mappedFields);
  if (datasources.length === 0) throw Errors.invalidDataRequest('mappedFields cannot be empty');
  // One table with fields is enough: the others may be listed empty.
  if (datasources.some((tables) => !Object.values(tables).some((fields) => fields.length > 0))) {
    throw Errors.invalidDataRequest('datasource must have at least one table with fields');
  }
  if (datasources.length > MAX_DATASOURCES_PER_JOB) {
    throw Errors.invalidDataRequest(`Maximum ${MAX_DATASOURCES_PER_JOB} datasources allowed per job, got ${datasources.length}`);
  }
  // No database names a table or column with U+0000, and MongoDB refuses it in the stored job's keys.
  const names = Object.entries(mappedFields).flatMap(([ds, tables]) => [ds, ...Object.entries(tables).flatMap(([table, fields]) => [table, ...fields])]);
  if (names.some(hasNul)) throw Errors.invalidDataRequest(NUL_IN_NAMES);
}

const NUL_IN_NAMES = 'datasource, table and field names must not contain NUL characters';
const hasNul = (name: string): boolean => name.includes('\u0000');

/** `metadata.source` routes the job's notifications and names the product that must own every stored connection. */
export function requireSource(metadata: Readonly<Record<string, unknown>> | undefined): string {
  if (metadata === undefined) throw Errors.missingRequiredField("metadata is required and must contain 'source' field");
  const source = metadata.source;
  if (source === undefined || source === null) {
    throw Errors.missingRequiredField('metadata.source is required for job notification routing');
  }
  if (typeof source !== 'string' || source.trim() === '') throw Errors.invalidFieldValue('metadata.source must be a non-empty string');
  // Checked with the other metadata rules: MongoDB refuses such a key when the job is stored.
  if (hasNulKey(metadata)) throw Errors.invalidFieldValue('metadata keys must not contain NUL characters');
  return source;
}

/** Filters may only name datasources the request extracts; table and field keys are the planner's business. */
export function checkFilterReferences(filterDatasources: readonly string[], mappedFields: MappedFields): void {
  const unknown = [...new Set(filterDatasources)].filter((name) => !Object.hasOwn(mappedFields, name)).sort();
  if (unknown.length === 0) return;
  throw Errors.invalidFilterReferences(
    unknown.map((name) => `filter references unknown datasource '${name}' not found in mappedFields`).join('; '),
  );
}

/**
 * The engine's filter rules, the planner's own: unknown operators, a wrong number of values, a
 * filter on a table the request does not map. Table keys are compared as the Worker normalises them
 * for the datasource's type (`public.orders` is `orders` on PostgreSQL), so `types` maps each config
 * name to its type; problems name the keys as sent.
 */
export function checkFilters(mappedFields: MappedFields, filters: JobFilters, types: ReadonlyMap<string, string>): void {
  const problems = filterProblems(mappedFields, filters, tableKeys(types));
  if (problems.length > 0) throw Errors.invalidFilter(problems);
}

/**
 * The engine's incremental rules that need no schema (each level an object, known keys, a cursor
 * field, a positive limit, every table mapped), on table keys as the Worker normalises them. The
 * cursor's type, nullability and the tie-breaker are checked against the schema afterwards.
 * A malformed request is refused, never ignored: ignoring it would make the job a full extraction.
 */
export function checkIncremental(
  mappedFields: MappedFields,
  incremental: Readonly<Record<string, unknown>> | undefined,
  types: ReadonlyMap<string, string>,
): JobIncremental | undefined {
  if (incremental === undefined) return undefined;
  // MongoDB refuses such a key when the job is stored, and no database names a column with it.
  if (hasNulKey(incremental)) throw Errors.invalidIncremental({ reason: IncrementalText.invalid, message: incrementalText(IncrementalText.invalid, 'incremental') });
  const key = tableKeys(types);
  const problem = incrementalProblem(
    mappedInEngineKeys(mappedFields, key),
    incrementalInEngineKeys(incremental, key, (configName) => parseDatasourceType(types.get(configName) ?? '') === 'ORACLE'),
  );
  if (problem) throw Errors.invalidIncremental(problem);
  return incremental as JobIncremental; // every level checked to be an object
}

/** Table keys as the Worker's planner sees them (`public.orders` is `orders` on PostgreSQL). */
function tableKeys(types: ReadonlyMap<string, string>): (configName: string, table: string) => string {
  return (configName, table) => {
    const type = parseDatasourceType(types.get(configName) ?? '');
    return type ? normaliseTableKey(type, table) : table;
  };
}

/** The tables that have fields, under their engine keys (tables listed empty are not extracted). */
function mappedInEngineKeys(mappedFields: MappedFields, key: (configName: string, table: string) => string): MappedFields {
  // Without a prototype: a name such as `__proto__` is a plain key in them.
  const out = Object.create(null) as Record<string, Record<string, readonly string[]>>;
  for (const [configName, tables] of Object.entries(mappedFields)) {
    const byKey = Object.create(null) as Record<string, readonly string[]>;
    for (const [table, fields] of Object.entries(tables)) {
      if (fields.length > 0) byKey[key(configName, table)] = [...(byKey[key(configName, table)] ?? []), ...fields];
    }
    out[configName] = byKey;
  }
  return out;
}
