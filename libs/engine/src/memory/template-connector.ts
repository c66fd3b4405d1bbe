/**
 * The in-memory connector. Used directly, or as the template of a
 * MemoryConnectorFactory: each build clones the behaviour into a fresh connector with its own
 * counters, and the template's counters then report the last built connector.
 */
import { compareUtf8, encodeCanonicalRow } from '../canonical/encode';
import type { ColumnInfo, ColumnKind, ConnectionDescriptor, IncrementalQuery, JsonValue, QueryRequest, Row, SchemaSnapshot } from '../models';
import { compareBound, comparePositions, normaliseBound, type Bounds } from '../incremental/position';
import { JsonNumber } from '../models';
import type { Connector, CursorItem, EncodedPosition, RowCursor } from '../ports';
import { cloneBehavior, type ConnectorBehavior } from './connector-behavior';
import { iterableCursor } from './eager-cursor';
import { abortReason, attempt, throwKnob } from './harness-support';

const utf8 = new TextEncoder();

export class TemplateConnector implements Connector {
  /** Mutable: later builds copy whatever it holds then. */
  behavior: ConnectorBehavior;
  readonly descriptor: ConnectionDescriptor | undefined;
  #testCalls = 0;
  #discoverCalls = 0;
  #queryCalls = 0;
  #closeCount = 0;
  #queries: QueryRequest[] = [];
  #lastClone: TemplateConnector | undefined;

  /** On unless `behavior.supportsIncremental` is false. */
  get supportsIncremental(): boolean {
    return this.behavior.supportsIncremental !== false;
  }

  constructor(behavior: ConnectorBehavior = {}, descriptor?: ConnectionDescriptor) {
    this.behavior = behavior;
    this.descriptor = descriptor;
  }

  /** A fresh connector with a copy of the current behaviour; the template now reports on it. */
  clone(descriptor: ConnectionDescriptor): TemplateConnector {
    const built = new TemplateConnector(cloneBehavior(this.behavior), descriptor);
    this.#lastClone = built;
    return built;
  }

  get testCalls(): number {
    return this.#view().#testCalls;
  }
  get discoverCalls(): number {
    return this.#view().#discoverCalls;
  }
  get queryCalls(): number {
    return this.#view().#queryCalls;
  }
  get closeCount(): number {
    return this.#view().#closeCount;
  }
  /** The requests queryStream received, in order. */
  get queries(): readonly QueryRequest[] {
    return [...this.#view().#queries];
  }

  testConnection(signal: AbortSignal): Promise<void> {
    return attempt(() => {
      this.#testCalls++;
      if (signal.aborted) throw abortReason(signal);
      throwKnob(this.behavior.testErr, () => new Error('test failed'));
    });
  }

  async discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    this.#discoverCalls++;
    if (this.behavior.blockOnSignal) await untilAborted(signal);
    throwKnob(this.behavior.discoverErr, () => new Error('discover failed'));
    return this.behavior.schema ?? deriveSchema(this.descriptor?.configName ?? '', this.behavior.rows ?? {});
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    this.#queryCalls++;
    this.#queries.push(structuredClone(request));
    if (this.behavior.blockOnSignal) await untilAborted(signal);
    throwKnob(this.behavior.queryErr, () => new Error('query failed'));
    const cursor = iterableCursor(this.#items(request), signal);
    await this.behavior.afterQuery?.(request, signal);
    return cursor;
  }

  close(): Promise<void> {
    return attempt(() => {
      this.#closeCount++;
      throwKnob(this.behavior.closeErr, () => new Error('close failed'));
    });
  }

  #view(): TemplateConnector {
    return this.#lastClone ?? this;
  }

  *#items(request: QueryRequest): Generator<CursorItem> {
    const { rows = {}, largeRowFactory, streamRowErr, streamFailAfter = 0, encodedBatchRows } = this.behavior;
    let delivered = 0;
    for (const table of Object.keys(request.tables).sort(compareUtf8)) {
      const fields = new Set(request.tables[table]);
      const incremental = request.incremental?.[table];
      const all = largeRowFactory?.(table) ?? [...(rows[table] ?? [])];
      const source = incremental ? incrementalRows(all, incremental) : all;
      let batch: string[] = [];
      let last: Row | undefined;
      const position = (): { position?: EncodedPosition } =>
        incremental && last ? { position: { value: last[incremental.cursorField] ?? null, key: last[incremental.tieBreaker] ?? null } } : {};
      for (const row of source) {
        if (streamRowErr !== undefined && delivered >= streamFailAfter) throw streamRowErr;
        delivered++;
        const projected = project(row, fields);
        if (!encodedBatchRows) {
          yield { table, row: projected };
          continue;
        }
        batch.push(encodeCanonicalRow(projected));
        last = row;
        if (batch.length >= encodedBatchRows) {
          yield { table, encoded: utf8.encode(batch.join(',')), rowCount: batch.length, ...position() };
          batch = [];
        }
      }
      if (batch.length > 0) yield { table, encoded: utf8.encode(batch.join(',')), rowCount: batch.length, ...position() };
    }
    // Fewer rows than streamFailAfter: the stream still fails, at its end.
    if (streamRowErr !== undefined) throw streamRowErr;
  }
}

/**
 * What a database does for an incremental query: the rows strictly after `after` in (cursor,
 * tie-breaker) order, at most `limit`. NULL cursors sort first with `nulls: "first"`, else last
 * (PostgreSQL's default for ascending order), and no NULL is after a value. A value that does
 * not fit its kind fails the query, as a database would refuse to compare it. A `lag` window
 * (`from`) takes instead every non-NULL cursor `>= from`.
 */
function incrementalRows(rows: Iterable<Row>, query: IncrementalQuery): Row[] {
  const keyed: { row: Row; bounds: Bounds }[] = [];
  const nullCursor: Row[] = [];
  for (const row of rows) {
    const key = normaliseBound(query.tieBreakerKind, row[query.tieBreaker]);
    const raw = row[query.cursorField];
    const value = raw === null || raw === undefined ? null : normaliseBound(query.cursorKind, raw);
    if (key === undefined || value === undefined) throw new Error('incremental value does not fit its column kind');
    if (value === null && query.nulls !== 'first') nullCursor.push(row);
    else keyed.push({ row, bounds: { value, key } });
  }
  const after = query.after;
  const from = query.from;
  const inWindow = (bounds: Bounds): boolean => {
    if (from !== undefined) return bounds.value !== null && compareBound(query.cursorKind, bounds.value, from) >= 0;
    return after === undefined || comparePositions(query, bounds, after) > 0;
  };
  const selected = keyed
    .filter(({ bounds }) => inWindow(bounds))
    .sort((a, b) => comparePositions(query, a.bounds, b.bounds))
    .map(({ row }) => row);
  const ordered = after === undefined ? [...selected, ...nullCursor] : selected;
  return query.limit === undefined ? ordered : ordered.slice(0, query.limit);
}

function project(row: Row, fields: ReadonlySet<string>): Row {
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(row)) if (fields.has(key)) out[key] = row[key];
  return out;
}

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(abortReason(signal));
    else signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
  });
}

/** Tables with the union of their rows' keys, and a kind guessed from the first non-null value. */
function deriveSchema(configName: string, rows: Readonly<Record<string, readonly Row[]>>): SchemaSnapshot {
  const tables = Object.keys(rows)
    .sort(compareUtf8)
    .map((name) => {
      const kinds = new Map<string, ColumnKind>();
      const nullable = new Set<string>();
      for (const row of rows[name]) {
        for (const [field, value] of Object.entries(row)) {
          if (!kinds.has(field) || (kinds.get(field) === 'other' && value !== null)) kinds.set(field, kindOf(value));
          if (value === null) nullable.add(field);
        }
      }
      const fields = [...kinds.keys()].sort(compareUtf8);
      // Text compares by code point here (compareUtf8), so string columns declare binary ordering.
      const columns: ColumnInfo[] = fields.map((field) => ({
        name: field,
        kind: kinds.get(field)!,
        nativeType: 'memory',
        ...(nullable.has(field) ? { nullable: true } : {}),
        ...(kinds.get(field) === 'string' ? { ordering: 'binary' as const } : {}),
      }));
      return { name, fields, columns };
    });
  return { configName, tables };
}

function kindOf(value: JsonValue): ColumnKind {
  if (value === null) return 'other';
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return 'integer';
  if (typeof value === 'number') return 'float';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (value instanceof JsonNumber) return 'decimal';
  if (value instanceof Uint8Array) return 'binary';
  return 'json';
}
