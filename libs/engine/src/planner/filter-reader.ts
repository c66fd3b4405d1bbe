/**
 * Request filters (config -> table -> field -> condition), read once `filterProblems` has passed
 * them: every level is then a plain object, every table mapped and every operator known. The checks
 * below stay as a second line for a caller that skips that gate; unknown operators and non-lists are
 * refused, because dropping them would silently widen the extraction.
 */
import { EngineError, filterListText, filterOperatorText, filterSingleValueText, filterTypeMismatchText } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import { FILTER_OPERATORS, type ColumnKind, type FilterCondition, type FilterOperator } from '../models';
import { isPlainObject, setOwn } from '../support/guards';
import { acceptsValue, isScalar } from './filter-values';

const OPERATORS: ReadonlySet<string> = new Set(FILTER_OPERATORS);
const SINGLE_VALUE: ReadonlySet<FilterOperator> = new Set(['gt', 'gte', 'lt', 'lte']);

/** table -> field -> condition, for one config; only plain-object levels survive. */
export type TableFilters = Record<string, Record<string, FilterCondition>>;

/** The filter field names per table (keys of `filters[config][table]` when both levels are objects). */
export function filterFieldNames(filters: unknown, configName: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  const byTable = configLevel(filters, configName);
  if (!byTable) return names;
  for (const table of Object.keys(byTable)) {
    const byField = byTable[table];
    if (isPlainObject(byField)) names.set(table, Object.keys(byField).sort(compareUtf8));
  }
  return names;
}

/**
 * The config's conditions, copied with sorted keys. Condition shapes are checked for every table;
 * values are checked by kind only where `kindOf` knows the table (mapped tables).
 */
export function readConfigFilters(
  filters: unknown,
  configName: string,
  kindOf: (table: string, field: string) => ColumnKind | undefined,
): TableFilters | undefined {
  const byTable = configLevel(filters, configName);
  if (!byTable) return undefined;
  const copy: TableFilters = {};
  for (const table of Object.keys(byTable).sort(compareUtf8)) {
    const byField = byTable[table];
    if (!isPlainObject(byField)) continue;
    const fields: Record<string, FilterCondition> = {};
    for (const field of Object.keys(byField).sort(compareUtf8)) {
      const condition = byField[field];
      if (!isPlainObject(condition)) continue; // counted for validation, but not a condition
      const path = `${configName}.${table}.${field}`;
      setOwn(fields, field, readCondition(condition, path, kindOf(table, field)));
    }
    setOwn(copy, table, fields);
  }
  return Object.keys(copy).length > 0 ? copy : undefined;
}

function configLevel(filters: unknown, configName: string): Record<string, unknown> | undefined {
  if (!isPlainObject(filters)) return undefined;
  const byTable = Object.prototype.hasOwnProperty.call(filters, configName) ? filters[configName] : undefined;
  return isPlainObject(byTable) ? byTable : undefined;
}

function readCondition(condition: Record<string, unknown>, path: string, kind: ColumnKind | undefined): FilterCondition {
  for (const key of Object.keys(condition)) {
    if (!OPERATORS.has(key)) throw new EngineError('validation', filterOperatorText(path));
  }
  const copy: Partial<Record<FilterOperator, unknown[]>> = {};
  for (const op of FILTER_OPERATORS) {
    const values = condition[op];
    if (values === undefined) continue;
    if (!Array.isArray(values)) throw new EngineError('validation', filterListText(path));
    if (SINGLE_VALUE.has(op) && values.length !== 1) throw new EngineError('validation', filterSingleValueText(path));
    const list = [...(values as unknown[])];
    if (!list.every((value) => acceptable(op, list.length, value, kind))) {
      throw new EngineError('validation', filterTypeMismatchText(path));
    }
    copy[op] = list;
  }
  return copy;
}

function acceptable(op: FilterOperator, count: number, value: unknown, kind: ColumnKind | undefined): boolean {
  // null means IS NULL / IS NOT NULL, which only a single-value eq or ne can express.
  if (value === null) return (op === 'eq' || op === 'ne') && count === 1;
  // like is matched as text by the connector, which also decides whether the column is text-like.
  if (op === 'like' || kind === undefined) return isScalar(value);
  return acceptsValue(kind, value);
}
