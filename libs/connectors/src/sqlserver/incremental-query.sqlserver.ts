/**
 * The keyset part of an incremental read on SQL Server: `(c > @pN OR (c = @pN AND k > @pM))` (or
 * `c >= @pN` for a `lag` window; SQL Server has no row comparison), `ORDER BY c, k` and
 * `OFFSET 0 ROWS FETCH NEXT n ROWS ONLY` for the limit. NULLs sort first in ascending order here,
 * which is what `nulls: "first"` asks for.
 *
 * The columns are named through the table alias `[t]` (the statement reads `FROM ... AS [t]`):
 * the select list converts decimals and date-times to text under the column's own name, and a bare
 * name in ORDER BY would sort by that text. `uniqueidentifier` sorts by its byte groups in SQL
 * Server, not as the engine orders UUIDs (their text), so a uuid column is compared and ordered as
 * its upper-case text under a BIN2 collation (fixed width, hex digits only: byte order is the
 * engine's order); an index on it no longer serves the read. Text columns never get here:
 * discovery does not report them as code-point ordered (discovery.sqlserver.ts).
 */
import { TYPES } from 'mssql';
import { EngineError, IncrementalText, incrementalText, type OrderableKind } from '@fetcher/engine';
import { bindFilterValue, type BoundValue } from '../common/filter-values';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import type { DiscoveredColumn, IncrementalTablePlan } from '../sql/discovered-schema';
import { SQLSERVER_TABLE_ALIAS, sqlServerParameter, type SqlServerParameter } from './statement.sqlserver';

export interface SqlServerKeyset {
  /** '' without an `after`; never carries WHERE or AND. */
  readonly where: string;
  readonly parameters: readonly SqlServerParameter[];
  /** ` ORDER BY ... [OFFSET 0 ROWS FETCH NEXT n ROWS ONLY]`, with its leading space. */
  readonly tail: string;
}

/** `firstPosition`: the number of the first `@p` parameter (after the filters'). */
export function sqlServerKeyset(plan: IncrementalTablePlan, firstPosition: number, path: string): SqlServerKeyset {
  const { query } = plan;
  for (const column of [plan.cursor, plan.tieBreaker]) {
    if (column.kind === 'string' && column.ordering !== 'binary') {
      throw new EngineError('validation', incrementalText(IncrementalText.collationOrder, `${path}.${column.name}`));
    }
  }
  const c = expression(plan.cursor, query.cursorKind);
  const k = expression(plan.tieBreaker, query.tieBreakerKind);
  const limit = query.limit === undefined ? '' : ` OFFSET 0 ROWS FETCH NEXT ${query.limit} ROWS ONLY`;
  const tail = ` ORDER BY ${c}, ${k}${limit}`;
  const parameters: SqlServerParameter[] = [];
  const bind = (column: DiscoveredColumn, kind: OrderableKind, value: unknown, field: string): string => {
    const name = `p${firstPosition + parameters.length}`;
    parameters.push(keysetParameter(name, column, bindFilterValue(kind, value, `${path}.${field}`)));
    return `@${name}`;
  };
  if (query.from !== undefined) {
    // A lag window: every cursor from its start on (NULL never passes `>=`); `after` is not bound.
    return { where: `${c} >= ${bind(plan.cursor, query.cursorKind, query.from, query.cursorField)}`, parameters, tail };
  }
  const after = query.after;
  if (after === undefined) return { where: '', parameters, tail };
  if (after.value === null) {
    // Still inside the NULL cursors (nulls first): the rest of them, then every non-NULL cursor.
    const key = bind(plan.tieBreaker, query.tieBreakerKind, after.key, query.tieBreaker);
    return { where: `((${c} IS NULL AND ${k} > ${key}) OR ${c} IS NOT NULL)`, parameters, tail };
  }
  const value = bind(plan.cursor, query.cursorKind, after.value, query.cursorField);
  const key = bind(plan.tieBreaker, query.tieBreakerKind, after.key, query.tieBreaker);
  // A named parameter may appear twice: the value is bound once.
  return { where: `(${c} > ${value} OR (${c} = ${value} AND ${k} > ${key}))`, parameters, tail };
}

function expression(column: DiscoveredColumn, kind: OrderableKind): string {
  const ref = `${SQLSERVER_TABLE_ALIAS}.${SQLSERVER_DIALECT.quoteIdentifier(column.catalogName)}`;
  return kind === 'uuid' ? `CONVERT(char(36), ${ref}) COLLATE Latin1_General_BIN2` : ref;
}

/**
 * As filters bind, except: a uuid as upper-case text (what `CONVERT(char(36), ...)` gives), and a
 * date-time cut to the most fraction digits SQL Server converts to the column's type: 3 for a
 * legacy `datetime`/`smalldatetime` (read in milliseconds), 7 for `datetime2`/`datetimeoffset`.
 * A position read from a row loses nothing; a lag window's start (the engine computes it to the
 * nanosecond) can only move earlier, reading more, never less.
 */
function keysetParameter(name: string, column: DiscoveredColumn, bound: BoundValue): SqlServerParameter {
  if (bound.kind === 'uuid') return { name, type: TYPES.VarChar(36), value: String(bound.value).toUpperCase() };
  if (bound.kind === 'datetime') {
    const digits = /^(?:small)?datetime$/i.test(column.nativeType) ? 3 : 7;
    return sqlServerParameter(name, { kind: 'datetime', value: cutFraction(String(bound.value), digits) });
  }
  return sqlServerParameter(name, bound);
}

/** `cutFraction('2024-01-01T10:00:00.1239Z', 3)` is `2024-01-01T10:00:00.123Z`. */
export function cutFraction(iso: string, digits: number): string {
  const match = /^(.*\.)(\d+)Z$/.exec(iso);
  return match && match[2].length > digits ? `${match[1]}${match[2].slice(0, digits)}Z` : iso;
}
