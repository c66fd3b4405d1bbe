import { BSON, MongoServerError } from 'mongodb';
import { EngineError } from '@fetcher/engine';
import { SequentialTableCursor, openAsItems } from '../common/table-cursor';
import { MongoTableRows, type DocumentSource } from './table-rows.mongodb';

/** A driver cursor stand-in over fixed items, recording how it was used. */
class FakeSource implements DocumentSource {
  closed = 0;
  private index = 0;
  constructor(private readonly items: readonly unknown[], private readonly failWith?: Error) {}
  next(): Promise<unknown> {
    if (this.failWith && this.index === this.items.length) return Promise.reject(this.failWith);
    return Promise.resolve(this.index < this.items.length ? this.items[this.index++] : null);
  }
  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
}

const bytes = (document: BSON.Document) => BSON.serialize(document);

async function drain(rows: MongoTableRows) {
  const out = [];
  for (let row = await rows.next(); row !== null; row = await rows.next()) out.push(row);
  return out;
}

describe(MongoTableRows.name, () => {
  it('decodes raw documents in order and ends with null', async () => {
    const sut = new MongoTableRows(new FakeSource([bytes({ n: 1 }), bytes({ n: 2, l: BSON.Long.fromString('9007199254740993') })]));
    expect(await drain(sut)).toEqual([{ n: 1 }, { n: 2, l: 9007199254740993n }]);
    expect(await sut.next()).toBeNull();
  });

  it('skips documents that cannot be decoded', async () => {
    const broken = Uint8Array.from(bytes({ s: 'ab' }));
    broken[broken.length - 3] = 0xff;
    const sut = new MongoTableRows(new FakeSource([bytes({ n: 1 }), broken, broken.subarray(0, 4), bytes({ n: 2 })]));
    expect(await drain(sut)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('maps documents the driver already decoded', async () => {
    const sut = new MongoTableRows(new FakeSource([{ n: 1n, id: new BSON.ObjectId('65a1b2c3d4e5f60718293a4b') }]));
    expect(await drain(sut)).toEqual([{ n: 1n, id: '65a1b2c3d4e5f60718293a4b' }]);
  });

  it('reports an expired maxTimeMS as a timeout and passes other failures through', async () => {
    const expired = new MongoServerError({ message: 'operation exceeded time limit', code: 50 });
    await expect(new MongoTableRows(new FakeSource([], expired)).next()).rejects.toMatchObject({
      category: 'timeout',
      message: 'datasource query timed out',
    });
    const other = new MongoServerError({ message: 'bad', code: 2 });
    await expect(new MongoTableRows(new FakeSource([], other)).next()).rejects.toBe(other);
  });

  it('closes the driver cursor', async () => {
    const source = new FakeSource([bytes({ n: 1 })]);
    await new MongoTableRows(source).close();
    expect(source.closed).toBe(1);
  });

  it('streams tables in order through the shared sequential cursor, and an abort rejects next()', async () => {
    const sources: Record<string, FakeSource> = {
      a: new FakeSource([bytes({ n: 1 }), bytes({ n: 2 })]),
      b: new FakeSource([]),
      c: new FakeSource([bytes({ n: 3 }), bytes({ n: 4 })]),
    };
    const controller = new AbortController();
    const cursor = new SequentialTableCursor(
      ['a', 'b', 'c'],
      openAsItems((table) => Promise.resolve(new MongoTableRows(sources[table]))),
      controller.signal,
    );
    const seen = [await cursor.next(), await cursor.next(), await cursor.next()];
    expect(seen).toEqual([
      { table: 'a', row: { n: 1 } },
      { table: 'a', row: { n: 2 } },
      { table: 'c', row: { n: 3 } },
    ]);
    expect([sources.a.closed, sources.b.closed, sources.c.closed]).toEqual([1, 1, 0]);
    controller.abort();
    await expect(cursor.next()).rejects.toBeInstanceOf(EngineError);
    await cursor.close();
    expect(sources.c.closed).toBe(1);
  });
});
