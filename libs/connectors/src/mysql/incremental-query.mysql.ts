/**
 * The keyset part of an incremental read on MySQL/MariaDB: `(c > ? OR (c = ? AND k > ?))` (or `c >= ?` for a `lag` window), spelled
 * out rather than as the row comparison `(c, k) > (?, ?)`, because MariaDB does not use an index on
 * `(c, k)` for the row form; `ORDER BY c, k` and `LIMIT`. NULLs sort first in ascending order here,
 * which is what `nulls: "first"` asks for. Text columns need no COLLATE: discovery reports only
 * binary NO PAD collations as code-point ordered, so the column's own order is already the engine's.
 */
import { bindFilterValue } from '../common/filter-values';
import { MYSQL_DIALECT } from '../sql/dialect';
import type { IncrementalTablePlan } from '../sql/discovered-schema';
import { mysqlParam } from './statement.mysql';

export interface MysqlKeyset {
  /** '' without an `after`; never carries WHERE or AND. */
  readonly where: string;
  readonly values: readonly unknown[];
  /** ` ORDER BY ... [LIMIT n]`, with its leading space. */
  readonly tail: string;
}

export function mysqlKeyset(plan: IncrementalTablePlan, path: string): MysqlKeyset {
  const { query } = plan;
  const c = MYSQL_DIALECT.quoteIdentifier(plan.cursor.catalogName);
  const k = MYSQL_DIALECT.quoteIdentifier(plan.tieBreaker.catalogName);
  const tail = ` ORDER BY ${c}, ${k}${query.limit === undefined ? '' : ` LIMIT ${query.limit}`}`;
  if (query.from !== undefined) {
    // A lag window: every cursor from its start on (NULL never passes `>=`); `after` is not bound.
    return { where: `${c} >= ?`, values: [mysqlParam(bindFilterValue(query.cursorKind, query.from, `${path}.${query.cursorField}`))], tail };
  }
  const after = query.after;
  if (after === undefined) return { where: '', values: [], tail };
  const key = mysqlParam(bindFilterValue(query.tieBreakerKind, after.key, `${path}.${query.tieBreaker}`));
  if (after.value === null) {
    // Still inside the NULL cursors (nulls first): the rest of them, then every non-NULL cursor.
    return { where: `((${c} IS NULL AND ${k} > ?) OR ${c} IS NOT NULL)`, values: [key], tail };
  }
  const value = mysqlParam(bindFilterValue(query.cursorKind, after.value, `${path}.${query.cursorField}`));
  return { where: `(${c} > ? OR (${c} = ? AND ${k} > ?))`, values: [value, value, key], tail };
}
