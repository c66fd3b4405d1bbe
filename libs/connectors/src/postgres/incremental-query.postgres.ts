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

export function keysetClause(plan: IncrementalTablePlan, firstPosition: number, path: string): KeysetClause {
  const { query } = plan;
  const c = expression(plan.cursor.catalogName, query.cursorKind);
  const k = expression(plan.tieBreaker.catalogName, query.tieBreakerKind);
  const nullsFirst = query.nulls === 'first';
  const limit = query.limit === undefined ? '' : ` LIMIT ${query.limit}`;
  const tail = ` ORDER BY ${c}${nullsFirst ? ' NULLS FIRST' : ' NULLS LAST'}, ${k}${limit}`;
  if (query.from !== undefined) {
    // A lag window: every cursor from its start on (NULL never passes `>=`); `after` is not bound.
    const from = toPgParam(bindFilterValue(query.cursorKind, query.from, `${path}.${query.cursorField}`));
    return { where: `${c} >= $${firstPosition}`, params: [from], tail };
  }
  const after = query.after;
  if (after === undefined) return { where: '', params: [], tail };
  const key = toPgParam(bindFilterValue(query.tieBreakerKind, after.key, `${path}.${query.tieBreaker}`));
  const $1 = `$${firstPosition}`;
  const $2 = `$${firstPosition + 1}`;
  if (after.value === null) {
    // Still inside the NULL cursors (nulls first): the rest of them, then every non-NULL cursor.
    return { where: `((${c} IS NULL AND ${k} > ${$1}) OR ${c} IS NOT NULL)`, params: [key], tail };
  }
  const value = toPgParam(bindFilterValue(query.cursorKind, after.value, `${path}.${query.cursorField}`));
  return { where: `(${c}, ${k}) > (${$1}, ${$2})`, params: [value, key], tail };
}

function expression(catalogName: string, kind: ColumnKind): string {
  const quoted = POSTGRES_DIALECT.quoteIdentifier(catalogName);
  return kind === 'string' ? `${quoted} COLLATE "C"` : quoted;
}
