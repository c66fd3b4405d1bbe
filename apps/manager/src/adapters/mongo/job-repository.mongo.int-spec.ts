import { randomUUID } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import mongoose, { type Connection, mongo } from 'mongoose';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../../jobs/job';
import { activeExecutionCheckerContract } from '../../testing/active-execution-checker.contract';
import { jobRepositoryContract } from '../../testing/job-repository.contract';
import { MongoActiveExecutionChecker } from './active-execution-checker.mongo';
import { ActiveHashIndexError, MongoJobRepository } from './job-repository.mongo';
import { JOB_MODEL, JobSchema } from './job.schema';

const tenant = createTenantContext('default');
type RawDoc = { _id: mongo.Binary } & mongo.Document;

function aJob(overrides: Partial<Job> = {}): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields: { 'pg-main': { t: ['a'] } },
    metadata: { source: 'reporter' },
    requestHash: randomUUID(),
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
    ...overrides,
  };
}

describe('MongoJobRepository against the MongoDB test server', () => {
  let target: MongoTestTarget;
  let connection: Connection;

  beforeAll(async () => {
    target = await withMongo();
  });
  afterAll(async () => {
    await target.close();
  });

  // A database per test: index state is part of what is tested.
  let sut: MongoJobRepository;
  let raw: mongo.Collection<RawDoc>;
  beforeEach(async () => {
    connection = await mongoose.createConnection(target.uri, { dbName: `jobs_it_${randomUUID().slice(0, 8)}` }).asPromise();
    sut = new MongoJobRepository(connection.model(JOB_MODEL, JobSchema) as unknown as mongoose.Model<unknown>);
    raw = connection.db!.collection<RawDoc>('job');
  });
  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('creates the indexes it owns, idempotently, with the active-hash index unique and partial; not the Worker\'s', async () => {
    await sut.ensureIndexes();
    await sut.ensureIndexes();
    const indexes = await raw.listIndexes().toArray();
    expect(indexes.map((i) => i.name as string).sort()).toEqual(
      [
        '_id_',
        'idx_job_completed',
        'idx_job_created',
        'idx_job_dispatch_sweep',
        'idx_job_hash_created',
        'idx_job_list',
        'idx_job_list_datasource',
        'idx_job_list_source',
        'idx_job_list_status',
        'idx_job_status',
        'idx_job_status_completed',
        'idx_job_status_created',
        'uniq_job_hash_active',
      ].sort(),
    );
    expect(indexes.find((i) => i.name === 'uniq_job_hash_active')).toMatchObject({
      key: { request_hash: 1 },
      unique: true,
      partialFilterExpression: { dedup_active: true },
    });
  });

  it('migrates an older active-hash index: drop, backfill dedup_active, recreate', async () => {
    await raw.insertMany([
      { _id: new mongo.Binary(Buffer.alloc(16, 1), 0), status: 'processing', request_hash: 'h1' },
      { _id: new mongo.Binary(Buffer.alloc(16, 2), 0), status: 'completed', request_hash: 'h1' },
      { _id: new mongo.Binary(Buffer.alloc(16, 3), 0), status: 'failed', request_hash: 'h2', dedup_active: true },
    ]);
    await raw.createIndex({ request_hash: 1 }, { name: 'uniq_job_hash_active', unique: true, partialFilterExpression: { status: 'pending' } });
    await sut.ensureIndexes();
    const docs = await raw.find({}, { sort: { _id: 1 } }).toArray();
    expect(docs.map((d) => d.dedup_active)).toEqual([true, false, false]);
    const index = (await raw.listIndexes().toArray()).find((i) => i.name === 'uniq_job_hash_active');
    expect(index?.partialFilterExpression).toEqual({ dedup_active: true });
  });

  it('refuses to start when two active jobs share a hash', async () => {
    await raw.insertMany([
      { _id: new mongo.Binary(Buffer.alloc(16, 1), 0), status: 'pending', request_hash: 'same' },
      { _id: new mongo.Binary(Buffer.alloc(16, 2), 0), status: 'processing', request_hash: 'same' },
    ]);
    await expect(sut.ensureIndexes()).rejects.toThrow(ActiveHashIndexError);
    await expect(sut.ensureIndexes()).rejects.toThrow(/manual cleanup required/);
  });

  describe('with indexes', () => {
    beforeEach(() => sut.ensureIndexes());

    describe('the job repository contract', () => {
      jobRepositoryContract(() => sut);
    });

    describe('the active execution checker contract (MongoActiveExecutionChecker on the same collection)', () => {
      activeExecutionCheckerContract(() => ({ checker: new MongoActiveExecutionChecker(connection), jobs: sut }));
    });

    it('stores the contract document with a subtype-0 binary id and reads it back', async () => {
      const job = aJob({ filters: { 'pg-main': { t: { a: { eq: [1] } } } } });
      expect(await sut.insert(tenant, job)).toBe('inserted');
      const doc = await raw.findOne({});
      expect(doc).toMatchObject({
        status: 'pending',
        dedup_active: true,
        request_hash: job.requestHash,
        mapped_fields: job.mappedFields,
        filters: job.filters,
        created_at: job.createdAt,
        completed_at: null,
        dispatched_at: null,
        dispatch_attempts: 0,
        dispatch_lock_until: null,
      });
      expect(doc!._id.sub_type).toBe(0);
      expect(await sut.findById(tenant, job.id)).toEqual(job);
    });

    it('refuses a second active job with the same hash, and allows one after a failure', async () => {
      const first = aJob();
      expect(await sut.insert(tenant, first)).toBe('inserted');
      expect(await sut.insert(tenant, aJob({ requestHash: first.requestHash }))).toBe('duplicate_active');
      expect((await sut.findNewestActiveByHash(tenant, first.requestHash))?.id).toBe(first.id);
      expect(await sut.markDispatchFailed(tenant, first.id, 'process failed: unable to publish', new Date())).toBe(true);
      expect(await sut.findNewestActiveByHash(tenant, first.requestHash)).toBeUndefined();
      expect(await sut.insert(tenant, aJob({ requestHash: first.requestHash }))).toBe('inserted');
      expect(await raw.findOne({ _id: new mongo.Binary(Buffer.from(first.id.replace(/-/g, ''), 'hex'), 0) })).toMatchObject({
        status: 'failed',
        dedup_active: false,
        metadata: { source: 'reporter', error: 'process failed: unable to publish' },
      });
    });

    it('fails only a job that is still pending', async () => {
      const job = aJob();
      await sut.insert(tenant, job);
      await raw.updateOne({}, { $set: { status: 'processing' } });
      expect(await sut.markDispatchFailed(tenant, job.id, 'x', new Date())).toBe(false);
    });

    it('finds the newest job with a hash inside the window, in any status', async () => {
      const hash = 'window';
      await sut.insert(tenant, aJob({ requestHash: hash, status: 'completed', createdAt: new Date('2026-01-01T00:00:00Z') }));
      const newer = aJob({ requestHash: hash, status: 'failed', createdAt: new Date('2026-01-01T00:01:00Z') });
      await sut.insert(tenant, newer);
      expect((await sut.findNewestByHashSince(tenant, hash, new Date('2026-01-01T00:00:00Z')))?.id).toBe(newer.id);
      expect(await sut.findNewestByHashSince(tenant, hash, new Date('2026-01-01T00:01:00.001Z'))).toBeUndefined();
    });

    it('lets exactly one of two concurrent claims take an undispatched job, and honours the lock', async () => {
      const job = aJob();
      await sut.insert(tenant, job);
      const now = new Date('2026-01-01T00:05:00Z');
      const claim = { createdBefore: new Date('2026-01-01T00:04:00Z'), now, lockUntil: new Date('2026-01-01T00:06:00Z') };
      const results = await Promise.all([sut.claimUndispatched(tenant, claim), sut.claimUndispatched(tenant, claim)]);
      expect(results.flatMap((r) => (r ? [r.id] : []))).toEqual([job.id]);
      expect(await raw.findOne({})).toMatchObject({ dispatch_attempts: 1, dispatch_lock_until: claim.lockUntil });
      // Still locked a minute later, free once the lock has passed.
      expect(await sut.claimUndispatched(tenant, { ...claim, now: new Date('2026-01-01T00:05:59Z') })).toBeUndefined();
      const again = await sut.claimUndispatched(tenant, { ...claim, now: new Date('2026-01-01T00:06:01Z') });
      expect(again?.dispatchAttempts).toBe(1);
      await sut.markDispatched(tenant, job.id, now);
      expect(await raw.findOne({})).toMatchObject({ dispatch_attempts: 3, dispatched_at: now, dispatch_lock_until: null });
      expect(await sut.claimUndispatched(tenant, { ...claim, now: new Date('2026-01-02T00:00:00Z') })).toBeUndefined();
    });

    it('claims a legacy pending job that has no dispatch bookkeeping at all, oldest first, and skips young ones', async () => {
      const legacyId = new mongo.Binary(Buffer.alloc(16, 9), 0);
      await raw.insertOne({ _id: legacyId, status: 'pending', dedup_active: true, request_hash: 'legacy', created_at: new Date('2025-12-31T00:00:00Z') });
      await sut.insert(tenant, aJob({ createdAt: new Date('2026-01-01T00:00:00Z') }));
      await sut.insert(tenant, aJob({ createdAt: new Date('2026-01-01T00:10:00Z') }));
      const claim = { createdBefore: new Date('2026-01-01T00:05:00Z'), now: new Date('2026-01-01T00:06:00Z'), lockUntil: new Date('2026-01-01T00:07:00Z') };
      const first = await sut.claimUndispatched(tenant, claim);
      const second = await sut.claimUndispatched(tenant, claim);
      expect(first?.createdAt).toEqual(new Date('2025-12-31T00:00:00Z'));
      expect(first?.dispatchAttempts).toBe(0);
      expect(second?.createdAt).toEqual(new Date('2026-01-01T00:00:00Z'));
      expect(await sut.claimUndispatched(tenant, claim)).toBeUndefined();
    });

    it('reads the progress the Worker writes', async () => {
      const job = aJob({ status: 'processing' });
      await sut.insert(tenant, job);
      const at = new Date('2026-01-01T00:00:30Z');
      await raw.updateOne({}, { $set: { progress: { tables_done: 2, rows_so_far: 1500, updated_at: at } } });
      expect((await sut.findById(tenant, job.id))?.progress).toEqual({ tablesDone: 2, rowsSoFar: 1500, updatedAt: at });
    });
  });
});
