import { FILTER_OPERATORS, type FilterCondition, type MappedFields } from '@fetcher/engine';
import type { JobFilters } from '../job';

/**
 * The body of `POST /v1/fetcher` after the parse stage: every known field has its JSON type, a
 * `null` counts as absent, unknown fields are gone. Nothing here is validated yet: the rules and
 * their order live in the create-job handler.
 */
export interface CreateJobRequest {
  /** Absent when `dataRequest` or `dataRequest.mappedFields` is missing or null. */
  readonly mappedFields?: MappedFields;
  /**
   * Operators with a `null` value, and the conditions, tables and datasources they leave empty, are
   * gone. Everything else stays as sent, unknown operators and empty value lists included: the
   * create-job handler refuses those (FET-0415) rather than extracting unfiltered.
   */
  readonly filters: JobFilters;
  /**
   * Absent when missing or null; otherwise the JSON object as sent (datasource -> table -> choice),
   * for the incremental rules to check: unlike filters, nothing in it is cleaned up or dropped.
   */
  readonly incremental?: Readonly<Record<string, unknown>>;
  /** Every datasource key the request's `filters` named, kept before the clean-up for the reference check. */
  readonly filterDatasources: readonly string[];
  /** Absent when missing or null; any JSON object otherwise. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export type ParseResult = { readonly ok: true; readonly request: CreateJobRequest } | { readonly ok: false };

const OPERATORS = new Set<string>(FILTER_OPERATORS);

class TypeMismatch extends Error {}

/**
 * The typed decode of the request body. Any known field with the wrong JSON type fails the whole
 * body, before any validation rule runs, so clients get one "unable to parse" answer for shape
 * problems and the specific answers only for well-typed requests.
 */
export function parseCreateJobRequest(body: unknown): ParseResult {
  try {
    const root = object(body);
    if (root === undefined) return { ok: false };
    const dataRequest = object(root.dataRequest);
    const mappedFields = dataRequest === undefined ? undefined : parseMappedFields(dataRequest.mappedFields);
    const { filters, datasources } = parseFilters(dataRequest?.filters);
    const incremental = object(dataRequest?.incremental);
    const metadata = object(root.metadata);
    return {
      ok: true,
      request: {
        ...(mappedFields !== undefined ? { mappedFields } : {}),
        filters,
        ...(incremental !== undefined ? { incremental } : {}),
        filterDatasources: datasources,
        ...(metadata !== undefined ? { metadata } : {}),
      },
    };
  } catch (error) {
    if (error instanceof TypeMismatch) return { ok: false };
    throw error;
  }
}

function parseMappedFields(value: unknown): MappedFields | undefined {
  const datasources = object(value);
  if (datasources === undefined) return undefined;
  const result: Record<string, Record<string, readonly string[]>> = {};
  for (const [name, tablesValue] of Object.entries(datasources)) {
    const tables: Record<string, readonly string[]> = {};
    for (const [table, fieldsValue] of Object.entries(object(tablesValue) ?? {})) {
      put(tables, table, stringArray(fieldsValue));
    }
    put(result, name, tables);
  }
  return result;
}

function parseFilters(value: unknown): { filters: JobFilters; datasources: string[] } {
  const datasources = object(value);
  if (datasources === undefined) return { filters: {}, datasources: [] };
  const filters: Record<string, Record<string, Record<string, FilterCondition>>> = {};
  for (const [name, tablesValue] of Object.entries(datasources)) {
    const tables: Record<string, Record<string, FilterCondition>> = {};
    for (const [table, fieldsValue] of Object.entries(object(tablesValue) ?? {})) {
      if (table.includes('\u0000')) throw new TypeMismatch(); // no store or database takes such a name
      const fields: Record<string, FilterCondition> = {};
      for (const [field, conditionValue] of Object.entries(object(fieldsValue) ?? {})) {
        if (field.includes('\u0000')) throw new TypeMismatch();
        const condition = parseCondition(conditionValue);
        if (Object.keys(condition).length > 0) put(fields, field, condition);
      }
      if (Object.keys(fields).length > 0) put(tables, table, fields);
    }
    if (Object.keys(tables).length > 0) put(filters, name, tables);
  }
  return { filters, datasources: Object.keys(datasources) };
}

/**
 * A known operator must hold an array of scalars (the only values a filter compares a column with);
 * an unknown one is kept whatever it holds, for the filter rules to name it. `null` means absent.
 */
function parseCondition(value: unknown): FilterCondition {
  const condition: Record<string, unknown> = {};
  for (const [op, values] of Object.entries(object(value) ?? {})) {
    if (values === null || values === undefined) continue;
    if (OPERATORS.has(op) && (!Array.isArray(values) || !values.every(isScalar))) throw new TypeMismatch();
    put(condition, op, values);
  }
  return condition; // unknown operators included, for the filter rules to name
}

/** `undefined` for null/absent; throws for anything that is not a JSON object. */
function object(value: unknown): Record<string, unknown> | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new TypeMismatch();
  return value as Record<string, unknown>;
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function stringArray(value: unknown): readonly string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new TypeMismatch();
  return value;
}

/** An own property even for a key such as `__proto__`, which plain assignment would turn into a prototype change. */
function put<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
