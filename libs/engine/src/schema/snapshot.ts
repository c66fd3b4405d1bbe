/** Checked copies of schema snapshots coming from connectors and caches. */
import { COLUMN_KINDS, type ColumnInfo, type ColumnKind, type SchemaSnapshot, type TableSchema } from '../models';
import { isObjectLike, isStringArray } from '../support/guards';

const KINDS: ReadonlySet<string> = new Set(COLUMN_KINDS);

/** A copy with `configName` forced to the requested one, or undefined when the value is not a snapshot. */
export function copySnapshot(value: unknown, configName: string): SchemaSnapshot | undefined {
  if (!isObjectLike(value) || !Array.isArray(value.tables)) return undefined;
  const tables: TableSchema[] = [];
  for (const table of value.tables as unknown[]) {
    const copy = copyTable(table);
    if (!copy) return undefined;
    tables.push(copy);
  }
  const snapshot: { configName: string; tables: TableSchema[]; capturedAt?: string } = { configName, tables };
  if (typeof value.capturedAt === 'string') snapshot.capturedAt = value.capturedAt;
  return snapshot;
}

function copyTable(value: unknown): TableSchema | undefined {
  if (!isObjectLike(value) || typeof value.name !== 'string' || !isStringArray(value.fields)) return undefined;
  const table: { name: string; fields: string[]; columns?: ColumnInfo[]; primaryKey?: string[] } = { name: value.name, fields: [...value.fields] };
  if (isStringArray(value.primaryKey) && value.primaryKey.length > 0) table.primaryKey = [...value.primaryKey];
  if (value.columns !== undefined && value.columns !== null) {
    if (!Array.isArray(value.columns)) return undefined;
    const columns: ColumnInfo[] = [];
    for (const column of value.columns as unknown[]) {
      if (!isObjectLike(column) || typeof column.name !== 'string') return undefined;
      // An unknown kind is treated like a missing one: `other`, which accepts any scalar filter value.
      const kind = (typeof column.kind === 'string' && KINDS.has(column.kind) ? column.kind : 'other') as ColumnKind;
      const copy: { -readonly [K in keyof ColumnInfo]: ColumnInfo[K] } = {
        name: column.name,
        kind,
        nativeType: typeof column.nativeType === 'string' ? column.nativeType : '',
      };
      // Unknown values read as "unknown" (absent), which incremental planning treats conservatively.
      if (typeof column.nullable === 'boolean') copy.nullable = column.nullable;
      if (column.ordering === 'binary' || column.ordering === 'collation') copy.ordering = column.ordering;
      columns.push(copy);
    }
    table.columns = columns;
  }
  return table;
}

/**
 * Field match: the exact name, or the parent of a dotted column at a dot boundary
 * (`natural_person` matches `natural_person.mother_name`; `natural` does not).
 */
export class FieldIndex {
  readonly #names = new Set<string>();
  readonly #parents = new Set<string>();
  readonly #documents = new Set<string>();

  /**
   * `columns` marks the document fields: a column whose native type is `object` (a sub-document,
   * as MongoDB discovery reports it, which lists top-level fields only) also matches any dotted
   * path below it (`address.city` under `address`).
   */
  constructor(fields: readonly string[], columns: readonly ColumnInfo[] = []) {
    for (const field of fields) {
      this.#names.add(field);
      for (let dot = field.indexOf('.'); dot > 0; dot = field.indexOf('.', dot + 1)) {
        this.#parents.add(field.slice(0, dot));
      }
    }
    for (const column of columns) if (column.nativeType === 'object') this.#documents.add(column.name);
  }

  matches(name: string): boolean {
    if (this.#names.has(name) || this.#parents.has(name)) return true;
    const dot = name.indexOf('.');
    return dot > 0 && dot < name.length - 1 && this.#documents.has(name.slice(0, dot));
  }
}
