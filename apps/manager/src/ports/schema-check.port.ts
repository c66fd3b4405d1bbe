import { compareUtf8, type IncrementalProblem, type TenantContext } from '@fetcher/engine';
import type { ResolvedConnection } from './connection-resolver.port';

/**
 * One entry of the validate-schema report: `TABLE_NOT_FOUND` and `FIELD_NOT_FOUND` name the table (and
 * field) as sent. A field only a filter names carries `in: "filters"` (job creation checks filters too).
 */
export type SchemaProblem = Readonly<Record<string, string>>;

/**
 * Checks the tables and fields one request names against a resolved connection's schema (cached
 * where the validate-schema route caches it), and answers the report entries of what does not exist,
 * in the client's own spelling. Used by validate-schema and by job creation, so both refuse the same
 * names. MAY reject: a dial or discovery failure, a denied host or SSL mode (as the engine's errors),
 * or the signal's abort; callers decide what a failure means for them.
 *
 * With `incremental` (this datasource's incremental tables, keyed as sent), the tables that exist
 * are also checked against the engine's incremental rules (cursor type, nullability, tie-breaker,
 * `after`); the first problem rejects with `IncrementalRefused`.
 *
 * With `filterFields` (table as sent -> the fields its filters name), each filter field is checked
 * too; one that does not exist (and is not also a missing selected field) is a `FIELD_NOT_FOUND`
 * with `in: "filters"`, naming the table as the filter spelled it.
 */
export interface SchemaCheck {
  check(
    tenant: TenantContext,
    connection: ResolvedConnection,
    tables: ReadonlyMap<string, readonly string[]>,
    signal?: AbortSignal,
    incremental?: Readonly<Record<string, unknown>>,
    filterFields?: ReadonlyMap<string, readonly string[]>,
  ): Promise<SchemaProblem[]>;
}

/** The request's incremental choice cannot run on the table as it is: a client error, not an inconclusive check. */
export class IncrementalRefused extends Error {
  constructor(readonly problem: IncrementalProblem) {
    super(problem.message);
    this.name = 'IncrementalRefused';
  }
}
export const SCHEMA_CHECK = Symbol('SchemaCheck');

/** The report's order: by datasource, then table, then field (an absent part first). */
export function sortSchemaProblems(problems: SchemaProblem[]): SchemaProblem[] {
  return problems.sort((a, b) => {
    for (const key of ['dataSourceId', 'table', 'field']) {
      const order = compareUtf8(a[key] ?? '', b[key] ?? '');
      if (order !== 0) return order;
    }
    return 0;
  });
}
