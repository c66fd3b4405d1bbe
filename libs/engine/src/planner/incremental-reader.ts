/**
 * `request.incremental` (config -> table -> {cursorField, tieBreaker?, after?, limit?, nulls?, lag?}),
 * checked against the discovered schema. Unlike filters, a malformed level is refused, never
 * ignored: ignoring it would silently turn an incremental job into a full extraction.
 */
import { EngineError, IncrementalText, incrementalText, type IncrementalRefusal } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import type { ColumnInfo, OrderableKind, PlannedIncremental, TableSchema } from '../models';
import { isOrderableKind, positionBounds, toPosition } from '../incremental/position';
import { acceptsLag, isValidLag } from '../incremental/lag-window';
import { NUMERIC_TEXT } from './filter-values';
import { getOwn, isNonBlankString, isPlainObject, isPositiveInteger, setOwn } from '../support/guards';
import type { Selection } from './request-reader';

interface TablePath {
  readonly config: string;
  readonly table: string;
}

/** Where a refusal points: the config alone (a malformed level), a table, or one of its fields. */
export interface RefusalPath {
  readonly config: string;
  readonly table?: string;
  readonly field?: string;
}

/**
 * An incremental refusal: an ordinary `validation` EngineError whose reason and names stay readable
 * as data, so that a host checking requests ahead of the planner (the Manager) need not parse text.
 */
export class IncrementalRefusedError extends EngineError {
  constructor(
    readonly refusal: IncrementalRefusal,
    readonly path: RefusalPath,
    message: string,
  ) {
    super('validation', message);
  }
}

const KEYS: ReadonlySet<string> = new Set(['cursorField', 'tieBreaker', 'after', 'limit', 'nulls', 'lag']);

/** The shape checks that need no schema: run before any datasource is probed. */
export function checkIncrementalShape(incremental: unknown, selection: Selection): void {
  if (incremental === undefined || incremental === null) return;
  if (!isPlainObject(incremental)) throw refuse(IncrementalText.invalid, { config: 'incremental' });
  for (const config of Object.keys(incremental).sort(compareUtf8)) {
    const byTable = incremental[config];
    if (!isPlainObject(byTable)) throw refuse(IncrementalText.invalid, { config });
    for (const table of Object.keys(byTable).sort(compareUtf8)) {
      const path = { config, table };
      if (!selection.get(config)?.has(table)) throw refuse(IncrementalText.notMapped, path);
      const spec = byTable[table];
      if (!isPlainObject(spec) || Object.keys(spec).some((k) => !KEYS.has(k))) throw refuse(IncrementalText.invalid, path);
      if (!isNonBlankString(spec.cursorField)) throw refuse(IncrementalText.invalid, path);
      if (spec.tieBreaker !== undefined && !isNonBlankString(spec.tieBreaker)) throw refuse(IncrementalText.invalid, path);
      if (spec.nulls !== undefined && spec.nulls !== 'first') throw refuse(IncrementalText.invalid, path);
      if (spec.limit !== undefined && !isPositiveInteger(spec.limit)) throw refuse(IncrementalText.limitInvalid, path);
      if (spec.lag !== undefined && !isLagShape(spec.lag)) throw refuse(IncrementalText.lagInvalid, path);
    }
  }
}

/** One config's tables, checked against their schemas; undefined when none is incremental. */
export function readConfigIncremental(
  incremental: unknown,
  configName: string,
  schemaOf: (table: string) => TableSchema | undefined,
): Record<string, PlannedIncremental> | undefined {
  if (!isPlainObject(incremental)) return undefined;
  const byTable = getOwn(incremental, configName);
  if (!isPlainObject(byTable)) return undefined;
  const planned: Record<string, PlannedIncremental> = {};
  for (const table of Object.keys(byTable).sort(compareUtf8)) {
    setOwn(planned, table, planTable(byTable[table] as Record<string, unknown>, { config: configName, table }, schemaOf(table)));
  }
  return Object.keys(planned).length > 0 ? planned : undefined;
}

function planTable(spec: Record<string, unknown>, path: TablePath, schema: TableSchema | undefined): PlannedIncremental {
  const cursorField = spec.cursorField as string;
  const nulls = spec.nulls === 'first' ? ('first' as const) : undefined;
  const cursor = column(schema, cursorField);
  if (!cursor) throw refuse(IncrementalText.cursorNotFound, { ...path, field: cursorField });
  const cursorKind = orderableKind(cursor, { ...path, field: cursorField });
  if (cursor.nullable === true && nulls === undefined) throw refuse(IncrementalText.nullableCursor, { ...path, field: cursorField });

  const tieBreaker = (spec.tieBreaker as string | undefined) ?? singleKey(schema);
  if (tieBreaker === undefined) throw refuse(IncrementalText.noTieBreaker, path);
  const key = column(schema, tieBreaker);
  if (!key) throw refuse(IncrementalText.tieBreakerNotFound, { ...path, field: tieBreaker });
  const tieBreakerKind = orderableKind(key, { ...path, field: tieBreaker });
  if (key.nullable === true) throw refuse(IncrementalText.nullableTieBreaker, { ...path, field: tieBreaker });

  const plannedNulls = nulls === undefined ? {} : { nulls };
  const kinds = { cursorKind, tieBreakerKind, ...plannedNulls };
  const planned: { -readonly [K in keyof PlannedIncremental]: PlannedIncremental[K] } = { cursorField, tieBreaker, ...kinds };
  if (spec.after !== undefined && spec.after !== null) {
    const bounds = positionBounds(kinds, spec.after);
    if (!bounds || Object.keys(spec.after).some((k) => k !== 'value' && k !== 'key')) throw refuse(IncrementalText.afterInvalid, path);
    planned.after = toPosition(bounds);
  }
  if (spec.limit !== undefined) planned.limit = spec.limit as number;
  if (spec.lag !== undefined) {
    if (!acceptsLag(cursorKind)) throw refuse(IncrementalText.lagNotApplicable, { ...path, field: cursorField });
    if (!isValidLag(cursorKind, spec.lag)) throw refuse(IncrementalText.lagInvalid, path);
    planned.lag = spec.lag as number | string;
  }
  return planned;
}

/** Before the schema is known: a non-negative number or its numeric text (the unit comes later). */
function isLagShape(lag: unknown): boolean {
  if (typeof lag === 'number') return Number.isFinite(lag) && lag >= 0;
  return typeof lag === 'string' && NUMERIC_TEXT.test(lag) && !lag.startsWith('-');
}

function column(schema: TableSchema | undefined, field: string): ColumnInfo | undefined {
  if (!schema?.fields.includes(field)) return undefined;
  // A field without column information has no known type, so it cannot be ordered.
  return schema.columns?.find((c) => c.name === field) ?? { name: field, kind: 'other', nativeType: '' };
}

/** A text column orders by code point only when the connector says so; any collation may not. */
function orderableKind(info: ColumnInfo, path: RefusalPath): OrderableKind {
  if (!isOrderableKind(info.kind)) throw refuse(IncrementalText.notOrderable, path);
  if (info.kind === 'string' && info.ordering !== 'binary') throw refuse(IncrementalText.collationOrder, path);
  return info.kind;
}

function singleKey(schema: TableSchema | undefined): string | undefined {
  return schema?.primaryKey?.length === 1 ? schema.primaryKey[0] : undefined;
}

function refuse(reason: IncrementalRefusal, path: RefusalPath): IncrementalRefusedError {
  const text = [path.config, path.table, path.field].filter((part) => part !== undefined).join('.');
  return new IncrementalRefusedError(reason, path, incrementalText(reason, text));
}
