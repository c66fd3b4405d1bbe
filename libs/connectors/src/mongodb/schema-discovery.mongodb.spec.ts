import { BSON, ObjectId, type Db } from 'mongodb';
import { collectionsByKey, inferCollectionSchema } from './schema-discovery.mongodb';
import { keyInferencePipeline } from './schema-inference.mongodb';

describe(collectionsByKey.name, () => {
  it('leaves out system collections', () => {
    const map = collectionsByKey(['people', 'system.views', 'system.profile', 'admin', 'local', 'config', 'orders']);
    expect([...map.entries()]).toEqual([
      ['orders', 'orders'],
      ['people', 'people'],
    ]);
  });

  it('reports a.b.c as b.c and keeps two-part names (kept quirk)', () => {
    expect(Object.fromEntries(collectionsByKey(['a.b.c', 'x.y', 'w.x.y.z']))).toEqual({
      'b.c': 'a.b.c',
      'x.y': 'x.y',
      'w.x.y.z': 'w.x.y.z',
    });
  });

  it('resolves a key clash to the collection named exactly like the key, else the first in UTF-8 order', () => {
    expect(collectionsByKey(['z.b.c', 'b.c', 'a.b.c']).get('b.c')).toBe('b.c');
    expect(collectionsByKey(['z.b.c', 'a.b.c']).get('b.c')).toBe('a.b.c');
  });
});

/** A Db stand-in recording the operations discovery asks for. */
function fakeDb(opts: { count: number; keys?: string[]; failKeys?: Error; samples: unknown[] }) {
  const calls: { op: string; arg: unknown; options?: Record<string, unknown> }[] = [];
  const cursor = (items: unknown[], error?: Error) => ({ toArray: () => (error ? Promise.reject(error) : Promise.resolve(items)) });
  const db = {
    command: (command: Record<string, unknown>) => {
      calls.push({ op: 'command', arg: command });
      return Promise.resolve({ n: opts.count, ok: 1 });
    },
    collection: (name: string) => ({
      aggregate: (pipeline: Record<string, unknown>[], options: Record<string, unknown>) => {
        calls.push({ op: `aggregate:${name}`, arg: pipeline, options });
        if ('$sample' in pipeline[0] && pipeline.length === 1) return cursor(opts.samples);
        return cursor(opts.keys ? [{ _id: null, keys: opts.keys }] : [], opts.failKeys);
      },
      find: (filter: unknown, options: Record<string, unknown>) => {
        calls.push({ op: `find:${name}`, arg: filter, options });
        return cursor(opts.samples);
      },
    }),
  };
  return { db: db as unknown as Db, calls };
}

describe(inferCollectionSchema.name, () => {
  const signal = new AbortController().signal;

  it('unites the aggregated keys with the sampled fields, reading the first 50 documents of a small collection', async () => {
    const broken = Uint8Array.from(BSON.serialize({ s: 'ab' }));
    broken[broken.length - 3] = 0xff;
    const { db, calls } = fakeDb({
      count: 3,
      keys: ['_id', 'name', 'rare'],
      samples: [BSON.serialize({ _id: new ObjectId(), name: 'a', when: new Date() }), broken],
    });
    const schema = await inferCollectionSchema(db, 'b.c', 'a.b.c', signal);
    expect(schema.name).toBe('b.c');
    expect(schema.fields).toEqual(['_id', 'name', 'rare', 'when']);
    expect(schema.columns!.map((c) => c.kind)).toEqual(['objectId', 'string', 'other', 'datetime']);
    expect(calls[0]).toEqual({ op: 'command', arg: { count: 'a.b.c' } });
    expect(calls[1].arg).toEqual(keyInferencePipeline(3));
    expect(calls[2]).toMatchObject({ op: 'find:a.b.c', arg: {}, options: { limit: 50, raw: true } });
  });

  it('samples 50 documents for the types of a collection above 1000', async () => {
    const { db, calls } = fakeDb({ count: 1001, keys: ['_id'], samples: [BSON.serialize({ _id: 1 })] });
    await inferCollectionSchema(db, 'big', 'big', signal);
    expect(calls[2]).toMatchObject({ op: 'aggregate:big', arg: [{ $sample: { size: 50 } }], options: { raw: true } });
  });

  it('treats a failed key aggregation as an empty key set', async () => {
    const { db } = fakeDb({ count: 2, failKeys: new Error('unsupported stage'), samples: [BSON.serialize({ a: 1 })] });
    const schema = await inferCollectionSchema(db, 'x', 'x', signal);
    expect(schema.fields).toEqual(['a']);
  });

  it('rethrows a failure caused by an abort', async () => {
    const controller = new AbortController();
    controller.abort();
    const failure = new Error('aborted');
    const { db } = fakeDb({ count: 2, failKeys: failure, samples: [] });
    await expect(inferCollectionSchema(db, 'x', 'x', controller.signal)).rejects.toBe(failure);
  });
});
