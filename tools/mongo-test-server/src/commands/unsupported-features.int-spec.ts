/**
 * What the test server does not implement must fail loudly, in MongoDB's own error shape, so that no
 * service code can come to rely on it by accident (a transaction whose abort keeps its writes, a TTL
 * index that never expires, a collation or validator silently ignored). Sessions themselves stay:
 * the driver sends an implicit `lsid` with every command.
 */
import { Long, MongoServerError, type Collection } from 'mongodb';
import { openDriverDatabase, type AnyDoc, type DriverDatabase } from '../testing/driver-database.fixture';

describe('features the test server refuses, and what it keeps', () => {
  let mongo: DriverDatabase;
  const seen: Record<string, unknown>[] = [];

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-unsupported', {
      clientOptions: { monitorCommands: true },
      beforeConnect: (client) => client.on('commandStarted', (event) => seen.push(event.command as Record<string, unknown>)),
    });
  });

  afterAll(() => mongo?.close());

  it('runs commands that carry the implicit session id', async () => {
    const items = mongo.fresh();
    await items.insertOne({ _id: 1 });
    expect(await items.countDocuments()).toBe(1);
    expect(seen.some((command) => command.insert !== undefined && command.lsid !== undefined)).toBe(true);
  });

  it('refuses a transaction with IllegalOperation, so an aborted transaction can never keep its writes', async () => {
    const items = mongo.fresh();
    const session = mongo.client.startSession();
    try {
      const attempt = session.withTransaction(async () => {
        await items.insertOne({ _id: 'in-transaction' }, { session });
        throw new Error('abort the transaction');
      });
      // As against a standalone mongod: the driver rewrites this answer into its "no retryable
      // writes" message and keeps the server's error as originalError.
      await expect(attempt).rejects.toMatchObject({ originalError: { code: 20, codeName: 'IllegalOperation' } });
    } finally {
      await session.endSession();
    }
    expect(await items.countDocuments()).toBe(0);
  });

  it('refuses collations, on reads, writes and indexes', async () => {
    const items = mongo.fresh();
    await items.insertOne({ name: 'a' });
    const collation = { locale: 'en', strength: 2 };
    const notImplemented = { code: 238, codeName: 'NotImplemented' };
    await expect(items.find({ name: 'A' }, { collation }).toArray()).rejects.toMatchObject(notImplemented);
    await expect(items.updateOne({ name: 'A' }, { $set: { x: 1 } }, { collation })).rejects.toMatchObject(notImplemented);
    await expect(items.deleteMany({ name: 'A' }, { collation })).rejects.toMatchObject(notImplemented);
    await expect(items.aggregate([{ $match: { name: 'A' } }], { collation }).toArray()).rejects.toMatchObject(notImplemented);
    await expect(items.createIndex({ name: 1 }, { collation })).rejects.toMatchObject(notImplemented);
    await expect(mongo.db.createCollection(`c${Date.now()}`, { collation })).rejects.toMatchObject(notImplemented);
  });

  it('refuses validators and TTL indexes instead of storing options it would never apply', async () => {
    const notImplemented = { code: 238, codeName: 'NotImplemented' };
    await expect(mongo.db.createCollection(`v${Date.now()}`, { validator: { name: { $type: 'string' } } })).rejects.toMatchObject(notImplemented);
    await expect(mongo.fresh().createIndex({ at: 1 }, { expireAfterSeconds: 60 })).rejects.toMatchObject(notImplemented);
  });

  it('sums Longs beyond 2^53 exactly, as a Long', async () => {
    const items: Collection<AnyDoc> = mongo.fresh();
    const big = Long.fromString('9007199254740993');
    await items.insertMany([{ g: 1, n: big }, { g: 1, n: Long.fromInt(2) }, { g: 1, n: 5 }]);
    const [row] = await items.aggregate([{ $group: { _id: '$g', total: { $sum: '$n' }, count: { $sum: 1 } } }], { promoteLongs: false }).toArray();
    expect(row.count).toBe(3);
    expect(Long.isLong(row.total)).toBe(true);
    expect((row.total as Long).toString()).toBe('9007199254741000');
  });

  it('answers refusals as server errors, never by closing the socket', async () => {
    const items = mongo.fresh();
    const error: unknown = await items.find({}, { collation: { locale: 'fr' } }).toArray().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(await items.countDocuments()).toBe(0);
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
