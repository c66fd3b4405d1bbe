import { MongoServerError } from 'mongodb';
import { openDriverDatabase, type DriverDatabase } from '../testing/driver-database.fixture';

/** What every DuplicateKey failure must carry, whatever the write that caused it. */
const duplicate = (index: string, keyValue: Record<string, unknown>) => expect.objectContaining({
  code: 11000,
  keyValue,
  errmsg: expect.stringMatching(new RegExp(`^E11000 duplicate key error collection: \\S+ index: ${index} dup key: \\{ .+ \\}$`)),
});

describe('indexes through the mongodb driver', () => {
  let mongo: DriverDatabase;

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-idx');
  });

  afterAll(() => mongo?.close());

  describe('createIndexes, listIndexes, dropIndexes', () => {
    it('creates indexes and lists them back with unique and partialFilterExpression', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ request_hash: 1 }, { name: 'uniq_job_hash_active', unique: true, partialFilterExpression: { dedup_active: true } });
      await coll.createIndex({ status: 1, created_at: -1 }, { name: 'idx_job_status_created', partialFilterExpression: { status: 'processing' } });
      const listed = await coll.listIndexes().toArray();
      expect(listed).toEqual([
        { v: 2, key: { _id: 1 }, name: '_id_' },
        { v: 2, key: { request_hash: 1 }, name: 'uniq_job_hash_active', unique: true, partialFilterExpression: { dedup_active: true } },
        { v: 2, key: { status: 1, created_at: -1 }, name: 'idx_job_status_created', partialFilterExpression: { status: 'processing' } },
      ]);
    });

    it('treats an identical create as done, and answers conflicts with 85 and 86', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ a: 1 }, { name: 'a_idx', unique: true });
      await expect(coll.createIndex({ a: 1 }, { name: 'a_idx', unique: true })).resolves.toBe('a_idx');
      await expect(coll.createIndex({ a: 1 }, { name: 'a_idx' })).rejects.toMatchObject({ code: 85, codeName: 'IndexOptionsConflict' });
      await expect(coll.createIndex({ b: 1 }, { name: 'a_idx' })).rejects.toMatchObject({ code: 86, codeName: 'IndexKeySpecsConflict' });
      await expect(coll.createIndex({ a: 1 }, { name: 'other_name', unique: true })).rejects.toMatchObject({ code: 85 });
    });

    it('drops by name, by key pattern and with *', async () => {
      const coll = mongo.fresh();
      await coll.createIndexes([{ key: { a: 1 }, name: 'a_1' }, { key: { b: 1 }, name: 'b_1' }, { key: { c: 1 }, name: 'c_1' }]);
      await coll.dropIndex('a_1');
      await mongo.db.command({ dropIndexes: coll.collectionName, index: { b: 1 } });
      expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'c_1']);
      await coll.dropIndexes();
      expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
      await expect(coll.dropIndex('missing')).rejects.toMatchObject({ code: 27 });
    });

    it('answers NamespaceNotFound (26) for the indexes of a missing collection', async () => {
      await expect(mongo.db.collection('nothing-here').listIndexes().toArray()).rejects.toMatchObject({ code: 26 });
    });

    it('refuses to build a unique index over existing duplicates', async () => {
      const coll = mongo.fresh();
      await coll.insertMany([{ k: 1 }, { k: 1 }]);
      const error = await coll.createIndex({ k: 1 }, { unique: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MongoServerError);
      expect(error).toEqual(duplicate('k_1', { k: 1 }));
      expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    });
  });

  describe('unique enforcement', () => {
    it('rejects a duplicate on insert with keyPattern and keyValue, on compound keys too', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ tenant: 1, name: 1 }, { unique: true });
      await coll.insertOne({ tenant: 't', name: 'n' });
      await coll.insertOne({ tenant: 't', name: 'm' });
      const error = await coll.insertOne({ tenant: 't', name: 'n' }).catch((e: unknown) => e);
      expect(error).toEqual(duplicate('tenant_1_name_1', { tenant: 't', name: 'n' }));
      expect(error).toMatchObject({ keyPattern: { tenant: 1, name: 1 } });
    });

    it('counts a missing field as null', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ k: 1 }, { unique: true });
      await coll.insertOne({ other: 1 });
      await expect(coll.insertOne({ k: null })).rejects.toEqual(duplicate('k_1', { k: null }));
    });

    it('rejects duplicates reached by update, upsert and findAndModify, leaving the data unchanged', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ email: 1 }, { unique: true });
      await coll.insertMany([{ _id: 1, email: 'a' }, { _id: 2, email: 'b' }]);
      await expect(coll.updateOne({ _id: 2 }, { $set: { email: 'a' } })).rejects.toEqual(duplicate('email_1', { email: 'a' }));
      await expect(coll.updateOne({ _id: 3 }, { $set: { email: 'b' } }, { upsert: true })).rejects.toEqual(duplicate('email_1', { email: 'b' }));
      await expect(coll.findOneAndUpdate({ _id: 1 }, { $set: { email: 'b' } })).rejects.toEqual(duplicate('email_1', { email: 'b' }));
      expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([{ _id: 1, email: 'a' }, { _id: 2, email: 'b' }]);
    });

    it('lets a document keep its own key when updated', async () => {
      const coll = mongo.fresh();
      await coll.createIndex({ email: 1 }, { unique: true });
      await coll.insertOne({ _id: 1, email: 'a', n: 1 });
      await expect(coll.updateOne({ _id: 1 }, { $inc: { n: 1 } })).resolves.toMatchObject({ modifiedCount: 1 });
    });
  });

  describe('partial unique indexes of the job and connection stores', () => {
    it('uniq_job_hash_active: one active job per request_hash, any number of finished ones', async () => {
      const jobs = mongo.fresh();
      await jobs.createIndex({ request_hash: 1 }, { name: 'uniq_job_hash_active', unique: true, partialFilterExpression: { dedup_active: true } });
      await jobs.insertOne({ _id: 'j1', request_hash: 'h', status: 'pending', dedup_active: true });
      await jobs.insertOne({ _id: 'j2', request_hash: 'h', status: 'completed', dedup_active: false });
      await jobs.insertOne({ _id: 'j3', request_hash: 'h', status: 'failed', dedup_active: false });
      await expect(jobs.insertOne({ _id: 'j4', request_hash: 'h', status: 'pending', dedup_active: true }))
        .rejects.toEqual(duplicate('uniq_job_hash_active', { request_hash: 'h' }));
      // A duplicate reached through an update: reactivating a finished job while another is active.
      await expect(jobs.updateOne({ _id: 'j2' }, { $set: { status: 'pending', dedup_active: true } }))
        .rejects.toEqual(duplicate('uniq_job_hash_active', { request_hash: 'h' }));
      // Finishing the active job frees the hash for a new one.
      await jobs.updateOne({ _id: 'j1' }, { $set: { status: 'completed', dedup_active: false } });
      await expect(jobs.insertOne({ _id: 'j5', request_hash: 'h', status: 'pending', dedup_active: true })).resolves.toBeDefined();
    });

    it('idx_connection_config_name: names are unique among live connections and reusable after delete', async () => {
      const connections = mongo.fresh();
      await connections.createIndex({ config_name: 1 }, { name: 'idx_connection_config_name', unique: true, partialFilterExpression: { deleted_at: null } });
      await connections.insertOne({ _id: 'c1', config_name: 'sales' });
      await expect(connections.insertOne({ _id: 'c2', config_name: 'sales', deleted_at: null }))
        .rejects.toEqual(duplicate('idx_connection_config_name', { config_name: 'sales' }));
      await connections.insertOne({ _id: 'c3', config_name: 'hr' });
      // A duplicate reached through an update: renaming a live connection onto a taken name.
      await expect(connections.updateOne({ _id: 'c3' }, { $set: { config_name: 'sales' } }))
        .rejects.toEqual(duplicate('idx_connection_config_name', { config_name: 'sales' }));
      // Soft-deleting c1 takes it out of the index, so its name can be used again.
      await connections.updateOne({ _id: 'c1' }, { $set: { deleted_at: new Date() } });
      await connections.insertOne({ _id: 'c4', config_name: 'sales' });
      await expect(connections.findOneAndUpdate({ _id: 'c1' }, { $set: { deleted_at: null } }))
        .rejects.toEqual(duplicate('idx_connection_config_name', { config_name: 'sales' }));
      expect(await connections.countDocuments({ config_name: 'sales' })).toBe(2);
    });
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
