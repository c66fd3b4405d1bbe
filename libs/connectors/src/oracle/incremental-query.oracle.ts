/**
 * The keyset part of an incremental read on Oracle: `(c > :n OR (c = :n+1 AND k > :n+2))` (or
 * `c >= :n` for a `lag` window), `ORDER BY c [NULLS FIRST], k` and `FETCH FIRST n ROWS ONLY`
 * (Oracle 12c+). Oracle sorts NULLs last in ascending order, so `nulls: "first"` is written out.
 * Binds are positional, one per marker, so the cursor value is bound twice; each goes through the
 * dialect's bind expression (date-times through TO_TIMESTAMP_TZ with an explicit format).
 *
 * Columns are named through the table alias `"t"` (the statement reads `FROM ... "t"`): the select
 * list converts date-times to text under the column's own name, and a bare name in ORDER BY would
 * sort by that text. A text column gets here only when discovery proved it code-point ordered (a
 * VARCHAR2 in AL32UTF8 under BINARY comparison and sort, which every session sets).
 */
import { EngineError, IncrementalText, incrementalText, type OrderableKind } from '@fetcher/engine';
import { bindFilterValue } from '../common/filter-values';
import { ORACLE_DIALECT } from '../sql/dialect';
import type { DiscoveredColumn, IncrementalTablePlan } from '../sql/discovered-schema';
import { ORACLE_TABLE_ALIAS, oracleBind } from './statement.oracle';

export interface OracleKeyset {
  /** '' without an `after`; never carries WHERE or AND. */
  readonly where: string;
  readonly binds: readonly unknown[];
  /** ` ORDER BY ... [FETCH FIRST n ROWS ONLY]`, with its leading space. */
  readonly tail: string;
}

/** `firstPosition`: the number of the first `:n` marker (after the filters'). */
export function oracleKeyset(plan: IncrementalTablePlan, firstPosition: number, path: string): OracleKeyset {
  const { query } = plan;
  for (const column of [plan.cursor, plan.tieBreaker]) {
    if (column.kind === 'string' && column.ordering !== 'binary') {
      throw new EngineError('validation', incrementalText(IncrementalText.collationOrder, `${path}.${column.name}`));
    }
  }
  const c = reference(plan.cursor);
  const k = reference(plan.tieBreaker);
  const limit = query.limit === undefined ? '' : ` FETCH FIRST ${query.limit} ROWS ONLY`;
  const tail = ` ORDER BY ${c}${query.nulls === 'first' ? ' NULLS FIRST' : ''}, ${k}${limit}`;
  const binds: unknown[] = [];
  const bind = (kind: OrderableKind, value: unknown, field: string): string => {
    const position = firstPosition + binds.length;
    binds.push(oracleBind(bindFilterValue(kind, value, `${path}.${field}`)));
    return ORACLE_DIALECT.bindExpression ? ORACLE_DIALECT.bindExpression(position, kind) : ORACLE_DIALECT.placeholder(position);
  };
  if (query.from !== undefined) {
    // A lag window: every cursor from its start on (NULL never passes `>=`); `after` is not bound.
    return { where: `${c} >= ${bind(query.cursorKind, query.from, query.cursorField)}`, binds, tail };
  }
  const after = query.after;
  if (after === undefined) return { where: '', binds, tail };
  if (after.value === null) {
    // Still inside the NULL cursors (nulls first): the rest of them, then every non-NULL cursor.
    const key = bind(query.tieBreakerKind, after.key, query.tieBreaker);
    return { where: `((${c} IS NULL AND ${k} > ${key}) OR ${c} IS NOT NULL)`, binds, tail };
  }
  const greater = bind(query.cursorKind, after.value, query.cursorField);
  const equal = bind(query.cursorKind, after.value, query.cursorField);
  const key = bind(query.tieBreakerKind, after.key, query.tieBreaker);
  return { where: `(${c} > ${greater} OR (${c} = ${equal} AND ${k} > ${key}))`, binds, tail };
}

function reference(column: DiscoveredColumn): string {
  return `${ORACLE_TABLE_ALIAS}.${ORACLE_DIALECT.quoteIdentifier(column.catalogName)}`;
}
