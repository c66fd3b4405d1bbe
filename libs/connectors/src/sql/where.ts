/**
 * Request filters compiled to a parameterised WHERE clause. Values are
 * always bound, never spliced into the SQL; identifiers are quoted by the dialect.
 */
import { EngineError, FILTER_OPERATORS, compareUtf8, type ColumnInfo, type FilterCondition, type FilterOperator } from '@fetcher/engine';
import type { SqlDialect } from './dialect';
import { bindFilterValue, nextDayStart, parseInstant, valueMismatch, type BoundValue } from '../common/filter-values';

export type { BoundValue } from '../common/filter-values';

/** `sql` is '' when there is no clause; it never carries the WHERE keyword. */
export interface CompiledWhere {
  readonly sql: string;
  readonly params: readonly BoundValue[];
}

export const NO_WHERE: CompiledWhere = Object.freeze({ sql: '', params: Object.freeze([]) });

const COMPARISON: Readonly<Record<'gt' | 'gte' | 'lt' | 'lte', string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Kinds `like` may run on: the database compares text, and anything else would be an implicit cast. */
const TEXT_KINDS: ReadonlySet<string> = new Set(['string']);

/**
 * `conditions` maps field names (as requested) to their condition; `columns` maps the same names to
 * the discovered column, whose `name` is what gets quoted (Oracle: the catalog spelling). A field
 * without a column counts as kind `other`. `path` is `<config>.<table>`; errors name
 * `<path>.<field>`. Fields are compiled in UTF-8 order and operators in their fixed order, so the
 * same filters always give the same SQL. Unknown operators are ignored, as the planner ignores any
 * shape it does not know.
 */
export function compileWhere(
  dialect: SqlDialect,
  conditions: Readonly<Record<string, FilterCondition>>,
  columns: ReadonlyMap<string, ColumnInfo>,
  path: string,
  firstPosition = 1,
): CompiledWhere {
  const clauses: string[] = [];
  const params: BoundValue[] = [];
  const bind = (value: BoundValue): string => {
    params.push(value);
    const position = firstPosition + params.length - 1;
    return dialect.bindExpression ? dialect.bindExpression(position, value.kind) : dialect.placeholder(position);
  };
  for (const field of Object.keys(conditions).sort(compareUtf8)) {
    const condition = conditions[field];
    if (condition === null || typeof condition !== 'object') continue;
    const column = columns.get(field);
    const target: FieldTarget = {
      sql: dialect.quoteIdentifier(column?.name ?? field),
      kind: column?.kind ?? 'other',
      path: `${path}.${field}`,
    };
    for (const op of FILTER_OPERATORS) {
      const values = (condition as Readonly<Record<string, unknown>>)[op];
      if (values === undefined) continue;
      if (!Array.isArray(values)) throw valueMismatch(target.path);
      clauses.push(...compileOperator(op, values as readonly unknown[], target, bind));
    }
  }
  return clauses.length === 0 ? NO_WHERE : { sql: clauses.join(' AND '), params };
}

interface FieldTarget {
  readonly sql: string;
  readonly kind: ColumnInfo['kind'];
  readonly path: string;
}

type Bind = (value: BoundValue) => string;

function compileOperator(op: FilterOperator, values: readonly unknown[], target: FieldTarget, bind: Bind): string[] {
  const { sql: f, kind, path } = target;
  const one = (value: unknown): string => bind(bindNonNull(kind, value, path));
  switch (op) {
    case 'eq':
      if (values.length === 0) return [];
      if (values.length === 1) return values[0] === null ? [`${f} IS NULL`] : [`${f} = ${one(values[0])}`];
      return [`${f} IN (${values.map(one).join(', ')})`];
    case 'ne':
      if (values.length === 1 && values[0] === null) return [`${f} IS NOT NULL`];
      return values.map((value) => `${f} <> ${one(value)}`);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (values.length !== 1) {
        throw new EngineError('validation', `filter operator requires exactly one value: ${path}`);
      }
      return [`${f} ${COMPARISON[op]} ${one(values[0])}`];
    case 'between':
      // Quirk (kept): any count other than two is ignored, not rejected.
      return values.length === 2 ? compileBetween(values[0], values[1], target, bind) : [];
    case 'in':
    case 'nin':
      if (values.length === 0) return [];
      return [`${f} ${op === 'in' ? 'IN' : 'NOT IN'} (${values.map(one).join(', ')})`];
    case 'like':
      if (values.length === 0) return [];
      if (!TEXT_KINDS.has(kind)) throw new EngineError('validation', `like requires a text column: ${path}`);
      // The first value counts, and only when it is a string; the collation decides case.
      return typeof values[0] === 'string' ? [`${f} LIKE ${bind({ kind: 'string', value: values[0] })}`] : [];
  }
}

/**
 * `f >= a AND f <= b`, except that a date-only upper bound on a datetime column becomes
 * `f < (b + 1 day) 00:00:00Z`: it covers the whole day, sub-millisecond values included.
 */
function compileBetween(lower: unknown, upper: unknown, target: FieldTarget, bind: Bind): string[] {
  const { sql: f, kind, path } = target;
  const low = `${f} >= ${bind(bindNonNull(kind, lower, path))}`;
  if (kind === 'datetime' && typeof upper === 'string' && parseInstant(upper)?.dateOnly) {
    const bound = nextDayStart(upper);
    if (bound === undefined) throw valueMismatch(path);
    return [low, `${f} < ${bind({ kind: 'datetime', value: bound })}`];
  }
  return [low, `${f} <= ${bind(bindNonNull(kind, upper, path))}`];
}

/** `null` is allowed only as the single value of eq/ne, which never reach here. */
function bindNonNull(kind: ColumnInfo['kind'], value: unknown, path: string): BoundValue {
  if (value === null || value === undefined) throw valueMismatch(path);
  return bindFilterValue(kind, value, path);
}
