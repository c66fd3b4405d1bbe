import type { Row } from '@fetcher/engine';
import { SequentialTableCursor, type TableRows } from './table-cursor';

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

describe(SequentialTableCursor.name, () => {
  const signal = new AbortController().signal;

  it('reads the tables one after another in the given order, skipping empty ones', async () => {
    const opened: string[] = [];
    const sources: Record<string, ListRows> = { a: new ListRows([{ n: 1 }, { n: 2 }]), b: new ListRows([]), c: new ListRows([{ n: 3 }]) };
    const sut = new SequentialTableCursor(['a', 'b', 'c'], async (table) => {
      opened.push(table);
      return sources[table];
    }, signal);
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
    const sut = new SequentialTableCursor(['a', 'b'], async (table) => {
      opened.push(table);
      return new ListRows([{ t: table }]);
    }, signal);
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
    const sut = new SequentialTableCursor(['a'], open, controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'canceled' });
    expect(open).not.toHaveBeenCalled();
  });

  it('reports a timeout reason as timeout', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('deadline', 'TimeoutError'));
    const sut = new SequentialTableCursor(['a'], jest.fn(), controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'timeout' });
  });

  it('closes the open table when reading fails and passes the failure on', async () => {
    const failing = new ListRows([], 0);
    const sut = new SequentialTableCursor(['a'], async () => failing, signal);
    await expect(sut.next()).rejects.toThrow('driver failed');
    expect(failing.closed).toBe(1);
  });

  it('reports the abort, not the driver failure, once the signal has aborted', async () => {
    const controller = new AbortController();
    const sut = new SequentialTableCursor(['a'], async () => {
      controller.abort();
      throw new Error('socket closed');
    }, controller.signal);
    await expect(sut.next()).rejects.toMatchObject({ category: 'canceled', message: 'execution canceled' });
  });

  it('closes the open table on close, idempotently, and ends', async () => {
    const rows = new ListRows([{ n: 1 }, { n: 2 }]);
    const sut = new SequentialTableCursor(['a'], async () => rows, signal);
    await sut.next();
    await sut.close();
    await sut.close();
    expect(rows.closed).toBe(1);
    expect(await sut.next()).toBeNull();
  });

  it('closes a table that finished opening after close()', async () => {
    const rows = new ListRows([{ n: 1 }]);
    let release!: () => void;
    const sut = new SequentialTableCursor(['a'], () => new Promise<TableRows>((resolve) => (release = () => resolve(rows))), signal);
    const pending = sut.next();
    const closing = sut.close();
    release();
    expect(await pending).toBeNull();
    await closing;
    expect(rows.closed).toBe(1);
  });
});
