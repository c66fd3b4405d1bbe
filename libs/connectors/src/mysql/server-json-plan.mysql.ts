/**
 * The server-built JSON path for MariaDB: the server writes each row's canonical JSON, so the
 * client neither builds row objects nor encodes most values.
 *
 * A row is selected as alternating columns `s0, v0, s1, v1, ..., sN`. Each `sK` is one CONCAT of
 * binary pieces (the canonical `"key":` prefixes as hex literals, and every value the server can
 * print exactly as the row path would). Each `vK` is a column whose canonical form the server
 * cannot print (FLOAT/DOUBLE: JavaScript's shortest round-trip form; JSON: keys sorted, literal
 * numbers): it is read as the column itself, through the row path's own type cast, and encoded on
 * the client, so those bytes are the row path's by construction. The row is `s0 + v0 + ... + sN`.
 *
 * Everything is concatenated as binary, so the server sends the bytes as built (UTF-8: every text
 * is converted to utf8mb4 first) and no connection charset or collation conversion gets a say.
 * Kinds it does not know (geometry, UUID, INET6, ...) make the whole table take the row path.
 */
import { compareUtf8, encodeCanonicalString } from '@fetcher/engine';
import { MYSQL_DIALECT, qualifiedName } from '../sql/dialect';
import type { DiscoveredColumn, TableQueryPlan } from '../sql/discovered-schema';
import { buildSelect } from '../sql/select';
import { mysqlParam } from './statement.mysql';

export interface ServerJsonStatement {
  readonly sql: string;
  readonly values: readonly unknown[];
  /** Number of `vK` columns; the result has `2 * clientValues + 1` columns. */
  readonly clientValues: number;
  /** The `vK` aliases that hold JSON columns (the row path's type cast parses them). */
  readonly jsonColumns: ReadonlySet<string>;
}

/** Result-set aliases: every select-list item gets one of these, never a catalog name. */
export const SEGMENT_PREFIX = 's';
export const VALUE_PREFIX = 'v';

type Rendering = { readonly server: string } | 'client' | undefined;

/** Why a table cannot take the server-built path, or undefined when it can. */
export function serverJsonRefusal(columns: readonly DiscoveredColumn[]): string | undefined {
  for (const column of columns) {
    if (rendering(column, '') === undefined) return `column ${column.name} (${column.nativeType}) has no server rendering`;
  }
  return undefined;
}

/** The statement for `plan`, or undefined when a column has no rendering here (the row path reads it). */
export function serverJsonStatement(plan: TableQueryPlan): ServerJsonStatement | undefined {
  if (serverJsonRefusal(plan.columns) !== undefined) return undefined;
  const columns = canonicalOrder(plan.columns);
  const select: string[] = [];
  const jsonColumns = new Set<string>();
  let pieces: string[] = [];
  const closeSegment = () => {
    select.push(`CONCAT(${pieces.join(', ')}) AS ${SEGMENT_PREFIX}${select.length / 2}`);
    pieces = [];
  };
  columns.forEach((column, i) => {
    const quoted = MYSQL_DIALECT.quoteIdentifier(column.catalogName);
    pieces.push(hexLiteral(`${i === 0 ? '{' : ','}${encodeCanonicalString(column.name)}:`));
    const how = rendering(column, quoted)!;
    if (how !== 'client') {
      pieces.push(`IFNULL(${how.server}, 'null')`);
      return;
    }
    closeSegment();
    const alias = `${VALUE_PREFIX}${(select.length - 1) / 2}`;
    select.push(`${quoted} AS ${alias}`);
    if (column.kind === 'json') jsonColumns.add(alias);
  });
  pieces.push(hexLiteral('}'));
  closeSegment();
  const table = qualifiedName(MYSQL_DIALECT, undefined, plan.table.table);
  return {
    sql: buildSelect(MYSQL_DIALECT, table, select, plan.where),
    values: plan.where.params.map(mysqlParam),
    clientValues: (select.length - 1) / 2,
    jsonColumns,
  };
}

/**
 * How one column's value is printed: an SQL expression that is NULL exactly when the column is
 * NULL and otherwise the canonical JSON text; 'client' for a `vK` column; undefined when neither
 * is known to match the row path.
 */
function rendering(column: DiscoveredColumn, c: string): Rendering {
  const native = column.nativeType.toLowerCase();
  switch (column.kind) {
    case 'integer':
      // `+ 0` drops ZEROFILL padding and YEAR's four digits ('0000'): the row path reads numbers.
      return { server: `${c} + 0` };
    case 'boolean': // BIT(1): the row path's flag is "the byte is not zero"
      return { server: `ELT(${c} + 1, 'false', 'true')` };
    case 'decimal': // the exact text, ZEROFILL padding included, as the row path keeps it
      return { server: `CONCAT('"', ${c}, '"')` };
    case 'string':
      return { server: `JSON_QUOTE(CONVERT(${c} USING utf8mb4))` };
    case 'time':
      return { server: `CONCAT('"', ${c}, '"')` };
    case 'binary':
      // TO_BASE64 breaks lines every 76 characters; standard base64 has no line breaks.
      return { server: `CONCAT('"', REPLACE(TO_BASE64(${c}), '\\n', ''), '"')` };
    case 'date':
      return { server: zeroDateAware(c, `CONCAT('"', ${c}, 'T00:00:00Z"')`) };
    case 'datetime':
      return { server: zeroDateAware(c, `CONCAT('"', REPLACE(${fractionTrimmed(c, native)}, ' ', 'T'), 'Z"')`) };
    case 'float':
    case 'json':
      return 'client';
    default:
      return undefined;
  }
}

/** A zero date (`0000-..`, `..-00-..`, `..-00`) is no instant: the row path keeps its text as it is. */
function zeroDateAware(c: string, instant: string): string {
  return `CASE WHEN ${c} IS NULL THEN NULL WHEN YEAR(${c}) = 0 OR MONTH(${c}) = 0 OR DAYOFMONTH(${c}) = 0 ` +
    `THEN JSON_QUOTE(CAST(${c} AS CHAR)) ELSE ${instant} END`;
}

/** The value's text with the fraction's trailing zeros (and then a bare `.`) trimmed; none without a fraction. */
function fractionTrimmed(c: string, native: string): string {
  const fsp = /\((\d)\)/.exec(native);
  const text = `CAST(${c} AS CHAR)`;
  return fsp && fsp[1] !== '0' ? `TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM ${text}))` : text;
}

/** Text as a binary hex literal: no quoting or escaping rules of the session can touch it. */
function hexLiteral(text: string): string {
  return `X'${Buffer.from(text, 'utf8').toString('hex')}'`;
}

/** Row keys in canonical (UTF-8) order, each once, as the row path's encoder writes them. */
function canonicalOrder(columns: readonly DiscoveredColumn[]): DiscoveredColumn[] {
  const byName = new Map<string, DiscoveredColumn>();
  for (const column of columns) if (!byName.has(column.name)) byName.set(column.name, column);
  return [...byName.values()].sort((a, b) => compareUtf8(a.name, b.name));
}
