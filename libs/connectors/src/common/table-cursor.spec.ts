import { EngineError, type CursorItem, type Row } from '@fetcher/engine';
import { SequentialTableCursor, openAsItems, type TableRows, type TableSource } from './table-cursor';

class ListRows implements TableRows {
  closed = 0;
  constructor(
    private readonly rows: Row[],
    private readonly failAt = -1,
  ) {}
  async next(): Promise<Row | null> {
    if (this.failAt === 0) throw new Error('driver failed: password=secret');
    const row = this.rows.shift() ?? null;
    return row;
  }
  async close(): Promise<void> {
    this.closed += 1;
  }
}

describe(`${SequentialTableCursor.name} over tables of rows`, () => {
  const signal = new AbortController().signal;

  it('reads the tables one after another in the given order, skipping empty ones', async () => {
    const opened: string[] = [];
    const sources: Record<string, ListRows> = { a: new ListRows([{ n: 1 }, { n: 2 }]), b: new ListRows([]), c: new ListRows([{ n: 3 }]) };
    const sut = new SequentialTableCursor(['a', 'b', 'c'], openAsItems(async (table) => {
      opened.push(table);
      return sources[table];
    }), signal);
    const items = [];
    for (let item = await sut.next(); item !== null; item = await sut.next()) items.push(item);
    expect(items).toEqual([
      { table: 'a', row: { n: 1 } },
      { table: 'a', row: { n: 2 } },
      { table: 'c', row: { n: 3 } },
    ]);
    expect(opened).toEqual(['a', 'b', 'c']);
    expect(Object.values(sources).map((s) => s.closed)).toEqual([1, 1, 1]);
    expect(await sut.next()).toBeNull();
  });

  it('opens a table only when the previous one is done', async () => {
    const opened: string[] = [];
    const sut = new SequentialTableCursor(['a', 'b'], openAsItems(async (table) => {
      opened.push(table);
      return new ListRows([{ t: table }]);
    }), signal);
    await sut.next();
    expect(opened).toEqual(['a']);
    await sut.next();
    expect(opened).toEqual(['a', 'b']);
    await sut.close();
  });

  it('rejects at once when the signal is already aborted, opening nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const open = jest.fn();
    const sut = new SequentialTableCursor(['a'], openAsItems(open), controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'canceled' });
    expect(open).not.toHaveBeenCalled();
  });

  it('reports a timeout reason as timeout', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('deadline', 'TimeoutError'));
    const sut = new SequentialTableCursor(['a'], openAsItems(jest.fn()), controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'timeout' });
  });

  it('closes the open table when reading fails and passes the failure on', async () => {
    const failing = new ListRows([], 0);
    const sut = new SequentialTableCursor(['a'], openAsItems(async () => failing), signal);
    await expect(sut.next()).rejects.toThrow('driver failed');
    expect(failing.closed).toBe(1);
  });

  it('reports the abort, not the driver failure, once the signal has aborted', async () => {
    const controller = new AbortController();
    const sut = new SequentialTableCursor(['a'], openAsItems(async () => {
      controller.abort();
      throw new Error('socket closed');
    }), controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'canceled', message: 'execution canceled' });
  });

  it('closes the open table on close, idempotently, and ends', async () => {
    const rows = new ListRows([{ n: 1 }, { n: 2 }]);
    const sut = new SequentialTableCursor(['a'], openAsItems(async () => rows), signal);
    await sut.next();
    await sut.close();
    await sut.close();
    expect(rows.closed).toBe(1);
    expect(await sut.next()).toBeNull();
  });

  it('closes a table that finished opening after close()', async () => {
    const rows = new ListRows([{ n: 1 }]);
    let release!: () => void;
    const sut = new SequentialTableCursor(['a'], openAsItems(() => new Promise<TableRows>((resolve) => (release = () => resolve(rows)))), signal);
    const pending = sut.next();
    const closing = sut.close();
    release();
    expect(await pending).toBeNull();
    await closing;
    expect(rows.closed).toBe(1);
  });
});

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

describe(`${SequentialTableCursor.name} over tables of items, rejecting before the failed table is closed`, () => {
  it('reads the tables one after another, closing each at its end, and skips empty ones', async () => {
    const sources = new Map([
      ['a', new FakeSource([row('a', 1), row('a', 2)])],
      ['b', new FakeSource([])],
      ['c', new FakeSource([{ table: 'c', encoded: Uint8Array.from([123, 125]), rowCount: 1 }])],
    ]);
    const opened: string[] = [];
    const sut = new SequentialTableCursor(['a', 'b', 'c'], (table) => {
      opened.push(table);
      return Promise.resolve(sources.get(table)!);
    }, new AbortController().signal, 'reject-then-close');
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
    const sut = new SequentialTableCursor(['a'], () => Promise.resolve(source), controller.signal, 'reject-then-close');
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
    const sut = new SequentialTableCursor(['a'], () => Promise.resolve(new FakeSource([])), controller.signal, 'reject-then-close');
    await expect(sut.next()).rejects.toMatchObject({ category: 'timeout' });
  });

  it('passes a table failure through and stops that table', async () => {
    const failure = new EngineError('timeout', 'datasource query timed out');
    const source = new FakeSource([], failure);
    const sut = new SequentialTableCursor(['a'], () => Promise.resolve(source), new AbortController().signal, 'reject-then-close');
    await expect(sut.next()).rejects.toBe(failure);
    await sut.close();
    expect(source.closed).toBe(1);
  });

  it('opens nothing once closed', async () => {
    const open = jest.fn(() => Promise.resolve(new FakeSource([row('a', 1)])));
    const sut = new SequentialTableCursor(['a'], open, new AbortController().signal, 'reject-then-close');
    await sut.close();
    expect(await sut.next()).toBeNull();
    expect(open).not.toHaveBeenCalled();
  });
});
