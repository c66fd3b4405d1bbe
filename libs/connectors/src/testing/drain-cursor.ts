import { isEncodedRows, type CursorItem, type CursorRow, type RowCursor } from '@fetcher/engine';

/** Every item of `cursor`, which is closed afterwards, also when reading fails. */
export async function drain(cursor: RowCursor): Promise<CursorItem[]> {
  const items: CursorItem[] = [];
  try {
    for (let item = await cursor.next(); item !== null; item = await cursor.next()) items.push(item);
  } finally {
    await cursor.close();
  }
  return items;
}

/** As drain, for connectors that emit value rows only: a pre-encoded batch fails the read. */
export async function drainRows(cursor: RowCursor): Promise<CursorRow[]> {
  const rows: CursorRow[] = [];
  try {
    for (let item = await cursor.next(); item !== null; item = await cursor.next()) {
      if (isEncodedRows(item)) throw new Error('expected value rows, got pre-encoded ones');
      rows.push(item);
    }
  } finally {
    await cursor.close();
  }
  return rows;
}
