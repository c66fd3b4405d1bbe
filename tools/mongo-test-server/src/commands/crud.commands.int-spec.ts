import { MongoBulkWriteError, MongoServerError, type Collection } from 'mongodb';
import { openDriverDatabase, type AnyDoc, type DriverDatabase } from '../testing/driver-database.fixture';

/** For the array operators, whose driver typings need to know which fields hold arrays. */
interface ListDoc {
  _id: number; n?: number; tags?: string[]; list?: number[]; rest?: number[]; q?: number[];
  lo?: number; hi?: number; old?: string; renamed?: string; touched?: Date; meta?: { seen: boolean };
}
const listsOf = (coll: Collection<AnyDoc>): Collection<ListDoc> => coll as Collection<ListDoc>;

describe('CRUD commands through the mongodb driver', () => {
  let mongo: DriverDatabase;

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-crud');
  });

  afterAll(() => mongo?.close());

  it('answers no CommandNotFound to any of the driver calls below', () => {
    // Runs first and again last (see the final test), so the list covers the whole file.
    expect(mongo.target.unknownCommands()).toEqual([]);
  });

  describe('insert', () => {
    it('inserts many documents (sent as an OP_MSG document sequence) and keeps natural order', async () => {
      const items = mongo.fresh();
      const docs = Array.from({ length: 250 }, (_, i) => ({ i }));
      const result = await items.insertMany(docs);
      expect(result.insertedCount).toBe(250);
      expect((await items.find({}).toArray()).map((d) => d.i)).toEqual(docs.map((d) => d.i));
    });

    it('reports a duplicate _id as a write error; an ordered batch stops there', async () => {
      const items = mongo.fresh();
      const error = await items.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MongoBulkWriteError);
      expect((error as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 11000 }]);
      expect(await items.countDocuments()).toBe(1);
    });

    it('continues an unordered batch past a duplicate', async () => {
      const items = mongo.fresh();
      const error = await items.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }], { ordered: false }).catch((e: unknown) => e);
      expect((error as MongoBulkWriteError).insertedCount).toBe(2);
      expect(await items.countDocuments()).toBe(2);
    });

    it('generates an ObjectId _id when the driver is told not to', async () => {
      const items = mongo.fresh();
      const raw = mongo.client.db(mongo.db.databaseName, {}).collection(items.collectionName);
      await mongo.db.command({ insert: items.collectionName, documents: [{ name: 'no id' }] });
      const [stored] = await raw.find({}).toArray();
      expect(stored._id.constructor.name).toBe('ObjectId');
      expect(Object.keys(stored)[0]).toBe('_id');
    });
  });

  describe('find', () => {
    let people: Collection<AnyDoc>;
    beforeAll(async () => {
      people = mongo.fresh();
      await people.insertMany([
        { _id: 1, name: 'ann', age: 31, address: { city: 'Oslo', zip: '0150' }, tags: ['a', 'b'] },
        { _id: 2, name: 'bob', age: 25, address: { city: 'Bergen', zip: '5003' }, tags: ['b'] },
        { _id: 3, name: 'cid', age: 42, address: { city: 'Oslo', zip: '0151' }, tags: [] },
        { _id: 4, name: 'dan', age: 25 },
      ]);
    });

    it('filters with operators, dotted paths and array membership', async () => {
      expect(await people.find({ age: { $gte: 30 } }).map((d) => d._id).toArray()).toEqual([1, 3]);
      expect(await people.find({ 'address.city': 'Oslo' }).map((d) => d._id).toArray()).toEqual([1, 3]);
      expect(await people.find({ tags: 'b' }).map((d) => d._id).toArray()).toEqual([1, 2]);
      expect(await people.find({ $or: [{ name: 'dan' }, { age: 42 }] }).map((d) => d._id).toArray()).toEqual([3, 4]);
      expect(await people.find({ address: { $exists: false } }).map((d) => d._id).toArray()).toEqual([4]);
      expect(await people.find({ name: /^[ab]/ }).map((d) => d._id).toArray()).toEqual([1, 2]);
    });

    it('sorts on several keys, then skips and limits', async () => {
      const sorted = await people.find({}).sort({ age: 1, name: -1 }).toArray();
      expect(sorted.map((d) => d._id)).toEqual([4, 2, 1, 3]);
      const page = await people.find({}).sort({ age: 1, name: -1 }).skip(1).limit(2).toArray();
      expect(page.map((d) => d._id)).toEqual([2, 1]);
    });

    it('applies inclusion and exclusion projections, with and without _id', async () => {
      expect(await people.findOne({ _id: 1 }, { projection: { name: 1, 'address.city': 1 } }))
        .toEqual({ _id: 1, name: 'ann', address: { city: 'Oslo' } });
      expect(await people.findOne({ _id: 1 }, { projection: { _id: 0, name: 1 } })).toEqual({ name: 'ann' });
      expect(await people.findOne({ _id: 2 }, { projection: { address: 0, tags: 0 } })).toEqual({ _id: 2, name: 'bob', age: 25 });
      expect(await people.findOne({ _id: 1 }, { projection: { tags: { $slice: 1 }, name: 1 } }))
        .toEqual({ _id: 1, name: 'ann', tags: ['a'] });
    });

    it('refuses a projection that mixes inclusion and exclusion', async () => {
      await expect(people.findOne({}, { projection: { name: 1, age: 0 } })).rejects.toMatchObject({ code: 2 });
    });

    it('answers a bad query operator with an error instead of failing the connection', async () => {
      await expect(people.findOne({ age: { $bogus: 1 } })).rejects.toBeInstanceOf(MongoServerError);
      expect(await people.countDocuments()).toBe(4);
    });
  });

  describe('update', () => {
    it('applies operators to one document, or all with multi', async () => {
      const items = listsOf(mongo.fresh());
      await items.insertMany([{ _id: 1, n: 1, tags: ['x'] }, { _id: 2, n: 2, tags: [] }]);
      const one = await items.updateOne({ n: { $gte: 1 } }, { $inc: { n: 10 }, $push: { tags: 'y' }, $set: { 'meta.seen': true } });
      expect(one).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      const many = await items.updateMany({}, { $mul: { n: 2 }, $addToSet: { tags: 'x' }, $unset: { meta: '' } });
      expect(many).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
      expect(await items.find({}).toArray()).toEqual([{ _id: 1, n: 22, tags: ['x', 'y'] }, { _id: 2, n: 4, tags: ['x'] }]);
    });

    it('supports $min, $max, $rename, $pull, $pullAll, $pop, $currentDate and $push modifiers', async () => {
      const items = listsOf(mongo.fresh());
      await items.insertOne({ _id: 1, lo: 5, hi: 5, old: 'v', list: [1, 2, 3, 4, 5], rest: [1, 2, 1], q: [3, 1] });
      await items.updateOne({ _id: 1 }, {
        $min: { lo: 2 }, $max: { hi: 9 }, $rename: { old: 'renamed' }, $pull: { list: { $gte: 4 } }, $pullAll: { rest: [1] },
        $pop: { q: -1 }, $currentDate: { touched: true },
      });
      await items.updateOne({ _id: 1 }, { $push: { list: { $each: [9, 0], $sort: 1, $slice: 3 } } });
      const doc = await items.findOne({ _id: 1 });
      expect(doc).toMatchObject({ lo: 2, hi: 9, renamed: 'v', list: [0, 1, 2], rest: [2], q: [1] });
      expect(doc?.touched).toBeInstanceOf(Date);
      expect(doc).not.toHaveProperty('old');
    });

    it('updates array elements through $, $[] and $[id] with arrayFilters', async () => {
      const items = mongo.fresh();
      await items.insertOne({ _id: 1, grades: [{ g: 80, ok: false }, { g: 95, ok: false }], all: [1, 2] });
      await items.updateOne({ _id: 1, 'grades.g': 95 }, { $set: { 'grades.$.ok': true } });
      await items.updateOne({ _id: 1 }, { $inc: { 'all.$[]': 10 } });
      await items.updateOne({ _id: 1 }, { $set: { 'grades.$[low].g': 85 } }, { arrayFilters: [{ 'low.g': { $lt: 90 } }] });
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, grades: [{ g: 85, ok: false }, { g: 95, ok: true }], all: [11, 12] });
    });

    it('replaces a document but keeps its _id', async () => {
      const items = mongo.fresh();
      await items.insertOne({ _id: 7, a: 1, b: 2 });
      await items.replaceOne({ _id: 7 }, { c: 3 });
      expect(await items.findOne({ _id: 7 })).toEqual({ _id: 7, c: 3 });
      await expect(items.replaceOne({ _id: 7 }, { _id: 8, c: 4 })).rejects.toMatchObject({ code: 66 });
    });

    it('upserts from the equality parts of the filter with $setOnInsert', async () => {
      const items = mongo.fresh();
      const result = await items.updateOne({ key: 'k', n: { $gt: 5 } }, { $set: { v: 1 }, $setOnInsert: { created: true } }, { upsert: true });
      expect(result).toMatchObject({ matchedCount: 0, upsertedCount: 1 });
      const stored = await items.findOne({ _id: result.upsertedId }, { projection: { _id: 0 } });
      expect(stored).toEqual({ key: 'k', v: 1, created: true });
      await items.updateOne({ key: 'k' }, { $set: { v: 2 }, $setOnInsert: { created: false } }, { upsert: true });
      expect(await items.findOne({ key: 'k' }, { projection: { _id: 0 } })).toEqual({ key: 'k', v: 2, created: true });
    });

    it('runs pipeline updates and keeps the numeric type of untouched fields', async () => {
      const items = mongo.fresh();
      await items.insertOne({ _id: 1, a: 2, b: 3 });
      await items.updateOne({ _id: 1 }, [{ $set: { sum: { $add: ['$a', '$b'] } } }, { $unset: 'b' }]);
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: 2, sum: 5 });
    });

    it('refuses unknown modifiers and conflicting paths', async () => {
      const items = mongo.fresh();
      await items.insertOne({ _id: 1, a: 1 });
      await expect(items.updateOne({ _id: 1 }, { $frobnicate: { a: 1 } })).rejects.toMatchObject({ code: 9 });
      await expect(items.updateOne({ _id: 1 }, { $set: { a: 2 }, $inc: { a: 1 } })).rejects.toMatchObject({ code: 40 });
      await expect(items.updateOne({ _id: 1 }, { $inc: { a: 'x' as unknown as number } })).rejects.toMatchObject({ code: 14 });
    });
  });

  describe('delete, count and distinct', () => {
    it('deletes one or many', async () => {
      const items = mongo.fresh();
      await items.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }, { k: 3 }]);
      expect((await items.deleteOne({ k: 1 })).deletedCount).toBe(1);
      expect((await items.deleteMany({ k: { $gte: 1 } })).deletedCount).toBe(3);
      expect(await items.countDocuments()).toBe(0);
    });

    it('counts with the count command, honouring skip and limit', async () => {
      const items = mongo.fresh();
      await items.insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
      expect(await mongo.db.command({ count: items.collectionName, query: { i: { $lt: 8 } } })).toMatchObject({ n: 8 });
      expect(await mongo.db.command({ count: items.collectionName, skip: 3, limit: 5 })).toMatchObject({ n: 5 });
      expect(await items.estimatedDocumentCount()).toBe(10);
    });

    it('returns distinct values, unwinding arrays and honouring the query', async () => {
      const items = mongo.fresh();
      await items.insertMany([{ t: ['a', 'b'], k: 1 }, { t: 'b', k: 1 }, { t: 'c', k: 2 }, { k: 1 }]);
      expect(await items.distinct('t', { k: 1 })).toEqual(['a', 'b']);
      expect(await items.distinct('t')).toEqual(['a', 'b', 'c']);
    });
  });

  describe('findAndModify', () => {
    let jobs: Collection<AnyDoc>;
    beforeEach(async () => {
      jobs = mongo.fresh();
      await jobs.insertMany([{ _id: 1, status: 'pending', p: 2 }, { _id: 2, status: 'pending', p: 9 }, { _id: 3, status: 'done', p: 5 }]);
    });

    it('returns the document after the update with returnDocument after, picking by sort', async () => {
      const claimed = await jobs.findOneAndUpdate({ status: 'pending' }, { $set: { status: 'processing' } }, { sort: { p: -1 }, returnDocument: 'after' });
      expect(claimed).toEqual({ _id: 2, status: 'processing', p: 9 });
    });

    it('returns the document before the update by default, projected with fields', async () => {
      const before = await jobs.findOneAndUpdate({ _id: 1 }, { $inc: { p: 1 } }, { projection: { p: 1 } });
      expect(before).toEqual({ _id: 1, p: 2 });
      expect(await jobs.findOne({ _id: 1 })).toMatchObject({ p: 3 });
    });

    it('upserts, reporting lastErrorObject, and returns the new document', async () => {
      const result = await jobs.findOneAndUpdate({ _id: 10 }, { $set: { status: 'new' } }, { upsert: true, returnDocument: 'after', includeResultMetadata: true });
      expect(result.value).toEqual({ _id: 10, status: 'new' });
      expect(result.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false, upserted: 10 });
    });

    it('removes the first match in sort order', async () => {
      expect(await jobs.findOneAndDelete({ status: 'pending' }, { sort: { p: 1 } })).toMatchObject({ _id: 1 });
      expect(await jobs.countDocuments()).toBe(2);
    });

    it('returns null when nothing matches and there is no upsert', async () => {
      expect(await jobs.findOneAndUpdate({ status: 'nope' }, { $set: { x: 1 } })).toBeNull();
      expect(await jobs.findOneAndReplace({ _id: 3 }, { status: 'replaced' }, { returnDocument: 'after' })).toEqual({ _id: 3, status: 'replaced' });
    });
  });

  it('still has seen no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
