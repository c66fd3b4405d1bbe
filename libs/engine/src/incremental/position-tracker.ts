/**
 * Follows one step's incremental tables as items stream by: the last position reached per table,
 * and the connector's side of the contract (strictly increasing positions, each after `after`, at
 * most `limit` rows; with a `lag` window, every row at or past `from`). A broken promise fails the run rather than yield a cursor that would skip or
 * repeat rows in the next job.
 */
import { EngineError, ErrorText, IncrementalText, incrementalText, type IncrementalRefusal } from '../errors';
import type { CursorPosition, IncrementalQuery, JsonValue, QueryRequest } from '../models';
import { isEncodedRows, type CursorItem } from '../ports';
import { compareBound, comparePositions, normaliseBound, toPosition, type Bounds } from './position';

interface TableTrack {
  readonly query: IncrementalQuery;
  readonly path: string;
  last: Bounds | undefined;
  /** `last` came from a row, not from `after`. */
  seen: boolean;
  rows: number;
  /** With a `lag` window: the position reported when no row passes it, so the chain never moves back. */
  readonly floor: Bounds | undefined;
}

export class PositionTracker {
  readonly #tables = new Map<string, TableTrack>();

  /** Undefined when the query reads no table incrementally. */
  static for(query: QueryRequest): PositionTracker | undefined {
    return query.incremental === undefined ? undefined : new PositionTracker(query.configName, query.incremental);
  }

  constructor(configName: string, incremental: Readonly<Record<string, IncrementalQuery>>) {
    for (const [table, query] of Object.entries(incremental)) {
      // A window re-reads rows at or before `after`: order is checked from the first row on.
      const windowed = query.from !== undefined;
      this.#tables.set(table, {
        query,
        path: `${configName}.${table}`,
        last: windowed ? undefined : query.after,
        seen: false,
        rows: 0,
        floor: windowed ? query.after : undefined,
      });
    }
  }

  /** Throws a categorised EngineError when the item breaks the incremental contract. */
  observe(item: CursorItem): void {
    const track = this.#tables.get(item.table);
    if (!track) return;
    let value: JsonValue | undefined;
    let key: JsonValue | undefined;
    if (isEncodedRows(item)) {
      // The engine cannot read positions out of encoded bytes: the connector must say where the batch ends.
      if (typeof item.position !== 'object' || item.position === null) throw stepFailed();
      ({ value, key } = item.position);
      track.rows += item.rowCount;
    } else {
      value = item.row[track.query.cursorField];
      key = item.row[track.query.tieBreaker];
      track.rows += 1;
    }
    if (track.query.limit !== undefined && track.rows > track.query.limit) throw stepFailed();
    const position = this.#bounds(track, value, key);
    const from = track.query.from;
    // A row before the window (or a NULL cursor inside it) means the connector ignored `from`.
    if (from !== undefined && (position.value === null || compareBound(track.query.cursorKind, position.value, from) < 0)) throw stepFailed();
    if (track.last !== undefined) {
      const order = comparePositions(track.query, track.last, position);
      // Two rows at one position: the tie-breaker is not unique. A row at `after` itself: the bound was ignored.
      if (order === 0) throw track.seen ? refuse(IncrementalText.notUnique, track.path) : stepFailed();
      if (order > 0) throw stepFailed(); // out of order, or not after `after`: the connector's bug
    }
    track.last = position;
    track.seen = true;
  }

  /** table -> last position reached (the `after` given when no row came), null when neither. */
  positions(): Record<string, CursorPosition | null> {
    const out: Record<string, CursorPosition | null> = {};
    for (const [table, track] of this.#tables) {
      const reached = reachedPosition(track);
      Object.defineProperty(out, table, { value: reached ? toPosition(reached) : null, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  #bounds(track: TableTrack, value: JsonValue | undefined, key: JsonValue | undefined): Bounds {
    const { query, path } = track;
    if (key === null || key === undefined) throw refuse(IncrementalText.nullTieBreakerValue, `${path}.${query.tieBreaker}`);
    const keyBound = normaliseBound(query.tieBreakerKind, key);
    if (keyBound === undefined) throw stepFailed();
    if (value === null || value === undefined) {
      if (query.nulls !== 'first') throw refuse(IncrementalText.nullCursorValue, `${path}.${query.cursorField}`);
      return { value: null, key: keyBound };
    }
    const valueBound = normaliseBound(query.cursorKind, value);
    if (valueBound === undefined) throw stepFailed();
    return { value: valueBound, key: keyBound };
  }
}

/** The last row's position, or the floor when the window held nothing past it. */
function reachedPosition(track: TableTrack): Bounds | undefined {
  const { last, floor } = track;
  if (floor === undefined || last === undefined) return last ?? floor;
  return comparePositions(track.query, last, floor) > 0 ? last : floor;
}

function refuse(reason: IncrementalRefusal, path: string): EngineError {
  return new EngineError('validation', incrementalText(reason, path));
}

/** The connector broke its side of the contract (order, limit, kinds): not the caller's fault. */
function stepFailed(): EngineError {
  return new EngineError('internal', ErrorText.stepUnexpected);
}
