/**
 * The keyset part of an incremental read: `(c, k) > ($n, $m)` (a row comparison, which an index on
 * `(c, k)` serves) or, for a `lag` window, `c >= $n`, `ORDER BY c, k` and `LIMIT`. Text compares under `COLLATE "C"`, code-point
 * order, the one the engine checks positions with; discovery only reports such columns as binary,
 * so the clause repeats the column's own collation and an index on it still applies.
 */
import type { ColumnKind } from '@fetcher/engine';
import { bindFilterValue } from '../common/filter-values';
import { POSTGRES_DIALECT } from '../sql/dialect';
import type { IncrementalTablePlan } from '../sql/discovered-schema';
import { toPgParam } from './pg-param.postgres';

export interface KeysetClause {
  /** '' without an `after`; never carries WHERE or AND. */
  readonly where: string;
  readonly params: readonly unknown[];
  /** ` ORDER BY ... [LIMIT n]`, with its leading space. */
  readonly tail: string;
}

export function keysetClause(plan: IncrementalTablePlan, firstPosition: number, path: string, table = ''): KeysetClause {
  const params: unknown[] = [];
  const { where, tail } = keysetParts(plan, path, table, (value) => {
    params.push(value);
    return `$${firstPosition + params.length - 1}`;
  });
  return { where, params, tail };
}

/**
 * The same clause with its bounds written as SQL literals, for the COPY fast path (COPY takes no bind
 * parameters). Only bounds whose text is made of letters, digits and `.:+- ` are written so: what the
 * engine normalises integers, decimals, floats, dates, date-times and UUIDs to, with no quote or
 * backslash to escape. Anything else (most text cursors, bytes) answers undefined, and the table takes
 * the row path with bound parameters.
 */
export function literalKeyset(plan: IncrementalTablePlan, path: string, table = ''): Omit<KeysetClause, 'params'> | undefined {
  let spliced = true;
  const parts = keysetParts(plan, path, table, (value) => {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text === 'string' && SAFE_LITERAL.test(text)) return `'${text}'`;
    spliced = false;
    return 'NULL';
  });
  return spliced ? parts : undefined;
}

const SAFE_LITERAL = /^[0-9A-Za-z.:+\- ]+$/;

/** The clause, each bound written by `bind` in the order given (cursor value before key). */
function keysetParts(plan: IncrementalTablePlan, path: string, table: string, bind: (value: unknown) => string): Omit<KeysetClause, 'params'> {
  const { query } = plan;
  const c = expression(table, plan.cursor.catalogName, query.cursorKind);
  const k = expression(table, plan.tieBreaker.catalogName, query.tieBreakerKind);
  const nullsFirst = query.nulls === 'first';
  const limit = query.limit === undefined ? '' : ` LIMIT ${query.limit}`;
  const tail = ` ORDER BY ${c}${nullsFirst ? ' NULLS FIRST' : ' NULLS LAST'}, ${k}${limit}`;
  if (query.from !== undefined) {
    // A lag window: every cursor from its start on (NULL never passes `>=`); `after` is not bound.
    return { where: `${c} >= ${bind(toPgParam(bindFilterValue(query.cursorKind, query.from, `${path}.${query.cursorField}`)))}`, tail };
  }
  const after = query.after;
  if (after === undefined) return { where: '', tail };
  if (after.value === null) {
    // Still inside the NULL cursors (nulls first): the rest of them, then every non-NULL cursor.
    const key = bind(toPgParam(bindFilterValue(query.tieBreakerKind, after.key, `${path}.${query.tieBreaker}`)));
    return { where: `((${c} IS NULL AND ${k} > ${key}) OR ${c} IS NOT NULL)`, tail };
  }
  const value = bind(toPgParam(bindFilterValue(query.cursorKind, after.value, `${path}.${query.cursorField}`)));
  const key = bind(toPgParam(bindFilterValue(query.tieBreakerKind, after.key, `${path}.${query.tieBreaker}`)));
  return { where: `(${c}, ${k}) > (${value}, ${key})`, tail };
}

/**
 * The column, qualified by `table` when given. ORDER BY resolves a bare name to an output column
 * first, and the COPY path selects `"c"::text` (output name `c`): unqualified, a numeric cursor would
 * sort as text and no index on `(c, k)` would serve the order.
 */
function expression(table: string, catalogName: string, kind: ColumnKind): string {
  const quoted = `${table === '' ? '' : `${table}.`}${POSTGRES_DIALECT.quoteIdentifier(catalogName)}`;
  return kind === 'string' ? `${quoted} COLLATE "C"` : quoted;
}
