import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, ObjectId, UUID } from 'mongodb';
import { openDriverDatabase, type DriverDatabase } from '../testing/driver-database.fixture';

/** Read back without promotion, so a Double(2) is not silently seen as the number 2. */
const RAW = { promoteValues: false, promoteLongs: false, promoteBuffers: false } as const;

describe('BSON values through the mongodb driver', () => {
  let mongo: DriverDatabase;

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-bson');
  });

  afterAll(() => mongo?.close());

  it('round-trips UUID, Date, Long, Int32, Double, Decimal128, ObjectId, nested documents and arrays', async () => {
    const coll = mongo.fresh();
    const doc = {
      _id: new UUID(),
      at: new Date('2026-01-02T03:04:05.678Z'),
      long: Long.fromString('9223372036854775807'),
      smallLong: Long.fromNumber(5),
      int: new Int32(7),
      double: new Double(2),
      decimal: Decimal128.fromString('12345678901234567890.123456789'),
      oid: new ObjectId(),
      nested: { deeper: { list: [new Int32(1), 'two', { three: new Double(3.25) }], empty: {} } },
      bytes: new Binary(Buffer.from([0, 1, 2, 255]), 0),
      regex: new BSONRegExp('^a.c$', 'i'),
      flag: false,
      nothing: null,
    };
    await coll.insertOne(doc);
    const stored = await coll.findOne({ _id: doc._id }, RAW);
    // The driver itself turns subtype-4 binaries into UUID and BSON regexes into RegExp on read.
    expect(stored).toEqual({ ...doc, regex: /^a.c$/i });
    expect(stored?._id).toBeInstanceOf(UUID);
    expect(stored?.long).toBeInstanceOf(Long);
    expect(stored?.smallLong).toBeInstanceOf(Long);
    expect(stored?.int).toBeInstanceOf(Int32);
    expect(stored?.double).toBeInstanceOf(Double);
    expect((stored?.decimal as Decimal128).toString()).toBe('12345678901234567890.123456789');
    expect(Object.keys(stored ?? {})).toEqual(Object.keys(doc));
  });

  it('keeps a Long a Long and an Int32 an Int32 through $inc, widening on overflow', async () => {
    const coll = mongo.fresh();
    await coll.insertOne({ _id: 1, l: Long.fromNumber(1), i: new Int32(2_147_483_647), d: new Double(1.5) });
    await coll.updateOne({ _id: 1 }, { $inc: { l: 1, i: 1, d: 1 } });
    const stored = await coll.findOne({ _id: 1 }, RAW);
    expect(stored?.l).toEqual(Long.fromNumber(2));
    expect(stored?.i).toEqual(Long.fromNumber(2_147_483_648));
    expect(stored?.d).toEqual(new Double(2.5));
  });

  it('matches numbers by value across types', async () => {
    const coll = mongo.fresh();
    await coll.insertMany([{ _id: 1, n: new Int32(5) }, { _id: 2, n: Long.fromNumber(5) }, { _id: 3, n: new Double(5) }, { _id: 4, n: 6 }]);
    expect(await coll.countDocuments({ n: 5 })).toBe(3);
    expect(await coll.countDocuments({ n: Long.fromNumber(5) })).toBe(3);
    expect(await coll.countDocuments({ n: { $gt: new Double(5.5) } })).toBe(1);
  });

  it('sorts mixed types in BSON type order', async () => {
    const coll = mongo.fresh();
    const values: [string, unknown][] = [
      ['regex', new BSONRegExp('x', '')], ['date', new Date(0)], ['true', true], ['false', false],
      ['oid', new ObjectId('000000000000000000000001')], ['bin', new Binary(Buffer.from([1]), 0)],
      ['object', { a: 1 }], ['string', 'abc'], ['decimal', Decimal128.fromString('3.5')], ['double', 2.5],
      ['long', Long.fromNumber(2)], ['int', new Int32(1)], ['null', null],
    ];
    await coll.insertMany(values.map(([name, v]) => ({ name, v })));
    await coll.insertOne({ name: 'missing' });
    const ascending = await coll.find({}).sort({ v: 1 }).map((d) => d.name as string).toArray();
    expect(ascending).toEqual(['null', 'missing', 'int', 'long', 'double', 'decimal', 'string', 'object', 'bin', 'oid', 'false', 'true', 'date', 'regex']);
    const descending = await coll.find({}).sort({ v: -1 }).map((d) => d.name as string).toArray();
    expect(descending.slice(0, 3)).toEqual(['regex', 'date', 'true']);
  });

  // mingo compares class instances through toString(), and Binary.toString() decodes bytes as
  // UTF-8: two generic binaries of invalid UTF-8 both read as U+FFFD and would look equal.
  // bson decodes subtype 4 as UUID, whose toString() is hex, so both kinds run.
  describe.each([
    ['generic binaries (subtype 0)', new Binary(Buffer.alloc(16, 0xff), 0), new Binary(Buffer.alloc(16, 0xfe), 0)],
    ['UUIDs (subtype 4)', new UUID(Buffer.alloc(16, 0xff)), new UUID(Buffer.alloc(16, 0xfe))],
  ])('%s whose bytes are not valid UTF-8', (_kind, first, second) => {
    const copyOf = (value: Binary): Binary => new Binary(Buffer.from(value.buffer), value.sub_type);

    it('stay distinct as _id, in queries and in $in', async () => {
      const coll = mongo.fresh();
      await coll.insertMany([{ _id: first, n: 1 }, { _id: second, n: 2 }]);
      expect(await coll.findOne({ _id: copyOf(second) })).toMatchObject({ n: 2 });
      expect(await coll.countDocuments({ _id: copyOf(first) })).toBe(1);
      expect(await coll.countDocuments({ _id: { $in: [copyOf(second)] } })).toBe(1);
      expect(await coll.countDocuments({ _id: { $ne: copyOf(first) } })).toBe(1);
    });

    it('stay distinct under a unique index, and a true duplicate is still caught', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ owner: 1 }, { unique: true });
      await coll.insertMany([{ owner: first }, { owner: second }]);
      await expect(coll.insertOne({ owner: copyOf(second) })).rejects.toMatchObject({ code: 11000 });
    });

    it('stay distinct in distinct and $group', async () => {
      const coll = mongo.fresh();
      await coll.insertMany([{ owner: first }, { owner: second }, { owner: second }]);
      expect(await coll.distinct('owner')).toHaveLength(2);
      const groups = await coll.aggregate([{ $group: { _id: '$owner', n: { $sum: 1 } } }, { $sort: { n: 1 } }]).toArray();
      expect(groups.map((g) => g.n)).toEqual([1, 2]);
      expect(Buffer.from((groups[0]._id as Binary).buffer)).toEqual(Buffer.from(first.buffer));
    });
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
