/**
 * The shape rules of request filters, as a pure function of the request: no schema, no I/O. The
 * Manager runs it at job creation (a 400 naming each problem) and the planner runs it before
 * planning, so a filter that cannot be applied is refused on both sides instead of being dropped,
 * which would silently widen the extraction.
 */
import { compareUtf8 } from '../canonical/encode';
import { FILTER_OPERATORS, type FilterOperator } from '../models';
import { isPlainObject } from '../support/guards';

/** One thing wrong with a filter. The names are the caller's own keys; `message` says what is wrong. */
export interface FilterProblem {
  readonly configName?: string;
  readonly table?: string;
  readonly field?: string;
  readonly operator?: string;
  readonly message: string;
}

const OPERATORS: ReadonlySet<string> = new Set(FILTER_OPERATORS);
/** Operators that take a fixed number of values. The others (eq, in, nin, ne) take one or more. */
const ARITY: Partial<Record<FilterOperator, number>> = { gt: 1, gte: 1, lt: 1, lte: 1, between: 2, like: 1 };

/**
 * Every problem of `filters` (config -> table -> field -> operator -> values) against `mappedFields`
 * (config -> table -> fields), sorted by config, table, field and operator. An empty list means the
 * filters are well-formed: every level an object, every datasource and table mapped, every operator
 * known, every value list of the right length. Absent (`undefined` or `null`) filters have no problem.
 * Table keys are compared as given, or through `tableKey` when the host normalises them (a default
 * schema prefix, case): problems still name the keys as sent. A filter field need not be one of the table's mapped fields (a query may filter on a column it does
 * not return); whether it exists is for schema validation.
 */
export function filterProblems(
  mappedFields: unknown,
  filters: unknown,
  tableKey: (configName: string, table: string) => string = (_configName, table) => table,
): FilterProblem[] {
  if (filters === undefined || filters === null) return [];
  if (!isPlainObject(filters)) return [{ message: 'filters must be an object of datasources' }];
  const mapped = isPlainObject(mappedFields) ? mappedFields : {};
  const problems: FilterProblem[] = [];
  for (const configName of sortedKeys(filters)) {
    const byTable = filters[configName];
    if (!Object.hasOwn(mapped, configName)) {
      problems.push({ configName, message: `filter on datasource '${configName}': the datasource is not in mappedFields` });
      continue;
    }
    if (!isPlainObject(byTable)) {
      problems.push({ configName, message: `filter on datasource '${configName}': must be an object of tables` });
      continue;
    }
    const tables = mapped[configName];
    const mappedKeys = new Set(isPlainObject(tables) ? Object.keys(tables).map((table) => tableKey(configName, table)) : []);
    for (const table of sortedKeys(byTable)) {
      const path = `${configName}.${table}`;
      if (!mappedKeys.has(tableKey(configName, table))) {
        problems.push({ configName, table, message: `filter on table '${path}': the table is not in mappedFields of datasource '${configName}'` });
        continue;
      }
      const byField = byTable[table];
      if (!isPlainObject(byField)) {
        problems.push({ configName, table, message: `filter on table '${path}': must be an object of fields` });
        continue;
      }
      for (const field of sortedKeys(byField)) problems.push(...conditionProblems(configName, table, field, byField[field]));
    }
  }
  return problems;
}

function conditionProblems(configName: string, table: string, field: string, condition: unknown): FilterProblem[] {
  const path = `${configName}.${table}.${field}`;
  if (!isPlainObject(condition)) {
    return [{ configName, table, field, message: `filter on '${path}': must be an object of operators (${FILTER_OPERATORS.join(', ')})` }];
  }
  const problems: FilterProblem[] = [];
  for (const operator of sortedKeys(condition)) {
    const values = condition[operator];
    const at = { configName, table, field, operator };
    if (!OPERATORS.has(operator)) {
      problems.push({ ...at, message: `filter on '${path}': unknown operator '${operator}' (use one of ${FILTER_OPERATORS.join(', ')})` });
    } else if (!Array.isArray(values)) {
      problems.push({ ...at, message: `filter on '${path}': operator '${operator}' needs a list of values` });
    } else {
      const wanted = ARITY[operator as FilterOperator];
      if (wanted !== undefined && values.length !== wanted) {
        problems.push({ ...at, message: `filter on '${path}': operator '${operator}' needs exactly ${wanted} value${wanted === 1 ? '' : 's'}, got ${values.length}` });
      } else if (values.length === 0) {
        problems.push({ ...at, message: `filter on '${path}': operator '${operator}' needs at least one value, got none` });
      }
    }
  }
  return problems;
}

function sortedKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).sort(compareUtf8);
}
