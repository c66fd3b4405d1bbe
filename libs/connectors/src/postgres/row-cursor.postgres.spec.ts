import { EngineError, type CursorItem } from '@fetcher/engine';
import { PostgresRowCursor, type TableSource } from './row-cursor.postgres';

/** A table of fixed items that records its lifecycle. */
class FakeSource implements TableSource {
  closed = 0;
  constructor(
    private readonly items: CursorItem[],
    private readonly failWith?: Error,
  ) {}
  next(): Promise<CursorItem | null> {
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    return Promise.resolve(this.items.shift() ?? null);
  }
  close(): Promise<void> {
    this.closed += 1;
    return Promise.resolve();
  }
}

const row = (table: string, id: number): CursorItem => ({ table, row: { id } });

describe(PostgresRowCursor.name, () => {
  it('reads the tables one after another, closing each at its end, and skips empty ones', async () => {
    const sources = new Map([
      ['a', new FakeSource([row('a', 1), row('a', 2)])],
      ['b', new FakeSource([])],
      ['c', new FakeSource([{ table: 'c', encoded: Uint8Array.from([123, 125]), rowCount: 1 }])],
    ]);
    const opened: string[] = [];
    const sut = new PostgresRowCursor(['a', 'b', 'c'], (table) => {
      opened.push(table);
      return Promise.resolve(sources.get(table)!);
    }, new AbortController().signal);
    const items: CursorItem[] = [];
    for (let item = await sut.next(); item !== null; item = await sut.next()) items.push(item);
    expect(items.map((i) => i.table)).toEqual(['a', 'a', 'c']);
    expect(opened).toEqual(['a', 'b', 'c']);
    expect([...sources.values()].map((s) => s.closed)).toEqual([1, 1, 1]);
    expect(await sut.next()).toBeNull();
  });

  it('rejects at once with canceled when the signal aborted, and closes the open table on close()', async () => {
    const controller = new AbortController();
    const source = new FakeSource([row('a', 1), row('a', 2)]);
    const sut = new PostgresRowCursor(['a'], () => Promise.resolve(source), controller.signal);
    expect(await sut.next()).toEqual(row('a', 1));
    controller.abort();
    await expect(sut.next()).rejects.toMatchObject({ category: 'canceled' });
    await sut.close();
    await sut.close();
    expect(source.closed).toBe(1);
  });

  it('reports a timeout reason as timeout', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('late', 'TimeoutError'));
    const sut = new PostgresRowCursor(['a'], () => Promise.resolve(new FakeSource([])), controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'timeout' });
  });

  it('passes a table failure through and stops that table', async () => {
    const failure = new EngineError('timeout', 'datasource query timed out');
    const source = new FakeSource([], failure);
    const sut = new PostgresRowCursor(['a'], () => Promise.resolve(source), new AbortController().signal);
    await expect(sut.next()).rejects.toBe(failure);
    await sut.close();
    expect(source.closed).toBe(1);
  });

  it('opens nothing once closed', async () => {
    const open = jest.fn(() => Promise.resolve(new FakeSource([row('a', 1)])));
    const sut = new PostgresRowCursor(['a'], open, new AbortController().signal);
    await sut.close();
    expect(await sut.next()).toBeNull();
    expect(open).not.toHaveBeenCalled();
  });
});
