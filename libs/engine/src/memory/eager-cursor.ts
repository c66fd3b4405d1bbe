/**
 * A RowCursor over rows that are all at hand: tables in UTF-8 order, rows
 * in array order, and an aborted signal stops it. Also the base of the template connector's cursor.
 */
import { compareUtf8 } from '../canonical/encode';
import type { Row } from '../models';
import type { CursorItem, RowCursor } from '../ports';
import { abortReason, attempt } from './harness-support';

export function eagerCursor(rows: Readonly<Record<string, readonly Row[]>>, signal?: AbortSignal): RowCursor {
  const copy = Object.keys(rows)
    .sort(compareUtf8)
    .map((table) => [table, [...rows[table]]] as const);
  return iterableCursor(
    (function* (): Generator<CursorItem> {
      for (const [table, list] of copy) for (const row of list) yield { table, row };
    })(),
    signal,
  );
}

/** A cursor over any iterator of items; `close()` is idempotent and ends the iterator. */
export function iterableCursor(items: Iterator<CursorItem>, signal?: AbortSignal): RowCursor {
  let closed = false;
  return {
    next(): Promise<CursorItem | null> {
      return attempt(() => {
        if (signal?.aborted) throw abortReason(signal);
        if (closed) return null;
        const step = items.next();
        return step.done ? null : step.value;
      });
    },
    close(): Promise<void> {
      return attempt(() => {
        if (closed) return;
        closed = true;
        items.return?.();
      });
    },
  };
}
