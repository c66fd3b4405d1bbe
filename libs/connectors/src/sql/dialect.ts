import type { ColumnKind } from '@fetcher/engine';

/**
 * Identifier quoting and placeholders per SQL dialect. Identifiers
 * are checked against the snapshot before they get here; quoting is what makes mixed-case and
 * reserved names work, and the escape rule is what makes a hostile name harmless.
 */
export interface SqlDialect {
  readonly name: 'postgres' | 'mysql' | 'sqlserver' | 'oracle';
  /** One identifier part, quoted and escaped. */
  quoteIdentifier(name: string): string;
  /** The bind marker for the 1-based parameter `position`. */
  placeholder(position: number): string;
  /**
   * Optional: the expression a filter value of `kind` is bound through, when the bare marker would
   * leave its conversion to session settings (Oracle's NLS date formats). Absent: the bare marker.
   */
  bindExpression?(position: number, kind: ColumnKind): string;
}

function doubleQuoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export const POSTGRES_DIALECT: SqlDialect = Object.freeze({
  name: 'postgres',
  quoteIdentifier: doubleQuoted,
  placeholder: (position: number) => `$${position}`,
});

export const MYSQL_DIALECT: SqlDialect = Object.freeze({
  name: 'mysql',
  quoteIdentifier: (name: string) => `\`${name.replaceAll('`', '``')}\``,
  placeholder: () => '?',
});

export const SQLSERVER_DIALECT: SqlDialect = Object.freeze({
  name: 'sqlserver',
  quoteIdentifier: (name: string) => `[${name.replaceAll(']', ']]')}]`,
  placeholder: (position: number) => `@p${position}`,
});

/** The text form Oracle date-time filter values are bound in (see ORACLE_DIALECT). */
export const ORACLE_TIMESTAMP_TZ_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM';

/**
 * Oracle identifiers are quoted with the catalog's own case; callers pass that spelling.
 * Dates and date-times are bound as text through an explicit format, so no NLS setting of the
 * session can change how they read.
 */
export const ORACLE_DIALECT: SqlDialect = Object.freeze({
  name: 'oracle',
  quoteIdentifier: doubleQuoted,
  placeholder: (position: number) => `:${position}`,
  bindExpression: (position: number, kind: ColumnKind) => {
    if (kind === 'datetime') return `TO_TIMESTAMP_TZ(:${position}, '${ORACLE_TIMESTAMP_TZ_FORMAT}')`;
    if (kind === 'date') return `TO_DATE(:${position}, 'YYYY-MM-DD')`;
    return `:${position}`;
  },
});

/** `"schema"."table"`, or the bare quoted table when there is no schema. */
export function qualifiedName(dialect: SqlDialect, schema: string | undefined, table: string): string {
  const quotedTable = dialect.quoteIdentifier(table);
  return schema === undefined || schema === '' ? quotedTable : `${dialect.quoteIdentifier(schema)}.${quotedTable}`;
}
