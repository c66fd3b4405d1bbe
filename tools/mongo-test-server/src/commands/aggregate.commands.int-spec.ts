import { UUID, type Collection } from 'mongodb';
import { openDriverDatabase, type AnyDoc, type DriverDatabase } from '../testing/driver-database.fixture';

describe('aggregate through the mongodb driver', () => {
  let mongo: DriverDatabase;
  let orders: Collection<AnyDoc>;
  const owners = [new UUID(), new UUID()];

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-agg');
    orders = mongo.db.collection<AnyDoc>('orders');
    await orders.insertMany([
      { _id: 1, owner: owners[0], status: 'open', total: 10, items: ['a', 'b'] },
      { _id: 2, owner: owners[0], status: 'closed', total: 20, items: ['b'] },
      { _id: 3, owner: owners[1], status: 'open', total: 5, items: [] },
      { _id: 4, owner: owners[1], status: 'open', total: 7, items: ['c', 'a'] },
    ]);
  });

  afterAll(() => mongo?.close());

  it('runs $match, $group, $sort, $skip and $limit, grouping on UUID values', async () => {
    const rows = await orders.aggregate([
      { $match: { status: 'open' } },
      { $group: { _id: '$owner', sum: { $sum: '$total' }, n: { $sum: 1 } } },
      { $sort: { sum: -1 } },
      { $skip: 0 },
      { $limit: 5 },
    ]).toArray();
    expect(rows).toEqual([{ _id: owners[1], sum: 12, n: 2 }, { _id: owners[0], sum: 10, n: 1 }]);
    expect(rows[0]._id).toBeInstanceOf(UUID);
  });

  it('runs $project, $addFields, $unwind and $count', async () => {
    const projected = await orders.aggregate([
      { $match: { _id: 1 } }, { $addFields: { double: { $multiply: ['$total', 2] } } }, { $project: { _id: 0, double: 1 } },
    ]).toArray();
    expect(projected).toEqual([{ double: 20 }]);
    const unwound = await orders.aggregate([{ $unwind: '$items' }, { $group: { _id: '$items', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
    expect(unwound).toEqual([{ _id: 'a', n: 2 }, { _id: 'b', n: 2 }, { _id: 'c', n: 1 }]);
    expect(await orders.aggregate([{ $match: { total: { $gt: 6 } } }, { $count: 'n' }]).toArray()).toEqual([{ n: 3 }]);
  });

  it('runs $sample, $objectToArray and $addToSet as schema inference does', async () => {
    const sampled = await orders.aggregate([{ $sample: { size: 2 } }]).toArray();
    expect(sampled).toHaveLength(2);
    const keys = await orders.aggregate([
      { $project: { kv: { $objectToArray: '$$ROOT' } } }, { $unwind: '$kv' },
      { $group: { _id: null, keys: { $addToSet: '$kv.k' } } },
    ]).toArray();
    expect([...keys[0].keys].sort()).toEqual(['_id', 'items', 'owner', 'status', 'total']);
  });

  it('serves countDocuments, which is an aggregate underneath', async () => {
    expect(await orders.countDocuments({ status: 'open' })).toBe(3);
  });

  it('returns a cursor that getMore continues', async () => {
    const all = await orders.aggregate([{ $sort: { _id: 1 } }], { batchSize: 1 }).toArray();
    expect(all.map((d) => d._id)).toEqual([1, 2, 3, 4]);
  });

  it('refuses stages that write', async () => {
    await expect(orders.aggregate([{ $out: 'copy' }]).toArray()).rejects.toMatchObject({ code: expect.any(Number) });
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
