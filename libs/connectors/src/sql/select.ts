import type { SqlDialect } from './dialect';
import type { CompiledWhere } from './where';

/**
 * `SELECT <columns> FROM <table> [WHERE ...]`: no ORDER BY and no LIMIT, a whole-table read in
 * database order. `qualifiedTable` and `columnExpressions` arrive quoted.
 */
export function buildSelect(
  dialect: SqlDialect,
  qualifiedTable: string,
  columnExpressions: readonly string[],
  where: CompiledWhere,
): string {
  const select = `SELECT ${columnExpressions.join(', ')} FROM ${qualifiedTable}`;
  return where.sql === '' ? select : `${select} WHERE ${where.sql}`;
}
