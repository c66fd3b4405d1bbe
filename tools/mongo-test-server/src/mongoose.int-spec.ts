import { randomUUID } from 'node:crypto';
import type { Binary } from 'mongodb';
import mongoose, { Schema, type Connection, type IndexDefinition, type IndexOptions } from 'mongoose';
import { withMongo, type MongoTestTarget } from './testing/with-mongo';

/** The indexes the apps declare. */
const CONNECTION_INDEXES: [IndexDefinition, IndexOptions][] = [
  [{ config_name: 1 }, { name: 'idx_connection_config_name', unique: true, partialFilterExpression: { deleted_at: null } }],
  [{ created_at: -1 }, { name: 'idx_connection_created', partialFilterExpression: { deleted_at: null } }],
  [{ database_name: 1 }, { name: 'idx_connection_database_name', partialFilterExpression: { deleted_at: null } }],
];
const JOB_INDEXES: [IndexDefinition, IndexOptions][] = [
  [{ status: 1 }, { name: 'idx_job_status' }],
  [{ status: 1, created_at: -1 }, { name: 'idx_job_status_created', partialFilterExpression: { status: 'processing' } }],
  [{ created_at: -1 }, { name: 'idx_job_created' }],
  [{ completed_at: -1 }, { name: 'idx_job_completed' }],
  [{ status: 1, completed_at: -1 }, { name: 'idx_job_status_completed', partialFilterExpression: { status: 'completed' } }],
  [{ request_hash: 1, created_at: -1 }, { name: 'idx_job_hash_created' }],
  [{ 'metadata.terminalEventPending': 1, status: 1, completed_at: 1, created_at: 1 },
    { name: 'idx_job_terminal_event_repair', partialFilterExpression: { 'metadata.terminalEventPending': true } }],
  [{ request_hash: 1 }, { name: 'uniq_job_hash_active', unique: true, partialFilterExpression: { dedup_active: true } }],
  [{ status: 1, dispatched_at: 1, created_at: 1 }, { name: 'idx_job_dispatch_sweep', partialFilterExpression: { status: 'pending' } }],
  [{ status: 1, 'lease.expires_at': 1 }, { name: 'idx_job_lease_expiry', partialFilterExpression: { status: 'processing' } }],
];

/** The stored shapes of connections and jobs, trimmed to what these tests touch. */
interface ConnectionRecord {
  _id: mongoose.Types.UUID; product_name: string; config_name: string; type?: string; host?: string; port?: number;
  database_name?: string; deleted_at: Date | null; created_at: Date; updated_at: Date;
}
interface JobRecord {
  _id: mongoose.Types.UUID; status: 'pending' | 'processing' | 'completed' | 'failed'; dedup_active: boolean; request_hash: string;
  metadata: Record<string, unknown>; created_at: Date; completed_at: Date | null; dispatch_attempts: number;
  lease?: { token: string; owner: string; expires_at: Date };
}

const connectionSchema = new Schema<ConnectionRecord>({
  _id: { type: Schema.Types.UUID, default: () => new mongoose.Types.UUID() },
  product_name: { type: String, default: '' },
  config_name: { type: String, required: true },
  type: String,
  host: String,
  port: Number,
  database_name: String,
  deleted_at: { type: Date, default: null },
}, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' }, collection: 'connection', versionKey: false });
for (const [keys, options] of CONNECTION_INDEXES) connectionSchema.index(keys, options);

const jobSchema = new Schema<JobRecord>({
  _id: { type: Schema.Types.UUID, default: () => new mongoose.Types.UUID() },
  status: { type: String, enum: ['pending', 'processing', 'completed', 'failed'], default: 'pending' },
  dedup_active: { type: Boolean, default: true },
  request_hash: { type: String, required: true },
  metadata: { type: Schema.Types.Mixed, default: {} },
  completed_at: { type: Date, default: null },
  dispatch_attempts: { type: Number, default: 0 },
  lease: { token: String, owner: String, expires_at: Date },
}, { timestamps: { createdAt: 'created_at', updatedAt: false }, collection: 'job', versionKey: false, minimize: false });
for (const [keys, options] of JOB_INDEXES) jobSchema.index(keys, options);

describe('mongoose models as the apps declare them', () => {
  let target: MongoTestTarget;
  let connection: Connection;
  let ConnectionModel: mongoose.Model<ConnectionRecord>;
  let JobModel: mongoose.Model<JobRecord>;

  beforeAll(async () => {
    target = await withMongo();
    connection = await mongoose.createConnection(target.uri, { dbName: `mts-mongoose-${randomUUID().slice(0, 8)}` }).asPromise();
    ConnectionModel = connection.model<ConnectionRecord>('Connection', connectionSchema);
    JobModel = connection.model<JobRecord>('Job', jobSchema);
    await Promise.all([ConnectionModel.init(), JobModel.init()]);
  });

  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
    await target?.close();
  });

  const indexesOf = async (collection: string) => (await connection.collection(collection).listIndexes().toArray())
    .filter((index) => index.name !== '_id_')
    .map(({ key, name, unique, partialFilterExpression }) => ({ key, name, unique, partialFilterExpression }));

  const expected = (definitions: [IndexDefinition, IndexOptions][]) => definitions.map(([key, options]) => ({
    key, name: options.name, unique: options.unique, partialFilterExpression: options.partialFilterExpression,
  }));

  it('creates every index the apps declare and lists back unique and partialFilterExpression', async () => {
    expect(await indexesOf('connection')).toEqual(expected(CONNECTION_INDEXES));
    expect(await indexesOf('job')).toEqual(expected(JOB_INDEXES));
  });

  it('finds nothing to change when the indexes are synced again', async () => {
    expect(await JobModel.diffIndexes()).toEqual({ toDrop: [], toCreate: [] });
    expect(await ConnectionModel.syncIndexes()).toEqual([]);
  });

  it('stores a UUID _id as binary subtype 4 and sets the creation timestamp', async () => {
    const job = await JobModel.create({ request_hash: 'h-uuid' });
    const raw = await connection.collection('job').findOne({ request_hash: 'h-uuid' }, { promoteBuffers: false });
    expect((raw?._id as unknown as Binary).sub_type).toBe(4);
    expect(raw?.created_at).toBeInstanceOf(Date);
    const found = await JobModel.findById(job._id).lean();
    expect(String(found?._id)).toBe(String(job._id));
    expect(found).toMatchObject({ status: 'pending', dedup_active: true, metadata: {}, completed_at: null });
  });

  it('claims a job with findOneAndUpdate, returnDocument after, picking by sort', async () => {
    await JobModel.create([{ request_hash: 'claim-1' }, { request_hash: 'claim-2' }]);
    const claimed = await JobModel.findOneAndUpdate(
      { status: 'pending', request_hash: /^claim-/ },
      { $set: { status: 'processing', lease: { token: 't', owner: 'w1', expires_at: new Date(Date.now() + 60_000) } }, $inc: { dispatch_attempts: 1 } },
      { returnDocument: 'after', sort: { created_at: 1, request_hash: 1 } },
    ).lean();
    expect(claimed).toMatchObject({ request_hash: 'claim-1', status: 'processing', dispatch_attempts: 1, lease: { owner: 'w1' } });
    expect(await JobModel.countDocuments({ status: 'processing', 'lease.owner': 'w1' })).toBe(1);
  });

  it('refuses a second active job with the same request_hash, and allows it once the first finished', async () => {
    const first = await JobModel.create({ request_hash: 'dedup' });
    await expect(JobModel.create({ request_hash: 'dedup' })).rejects.toMatchObject({
      code: 11000, keyPattern: { request_hash: 1 }, keyValue: { request_hash: 'dedup' },
    });
    await JobModel.updateOne({ _id: first._id }, { $set: { status: 'completed', dedup_active: false, completed_at: new Date() } });
    await expect(JobModel.create({ request_hash: 'dedup' })).resolves.toBeDefined();
    // Reactivating the finished job now collides with the new active one.
    await expect(JobModel.findOneAndUpdate({ _id: first._id }, { $set: { status: 'pending', dedup_active: true } }, { returnDocument: 'after' }))
      .rejects.toMatchObject({ code: 11000 });
  });

  it('keeps config_name unique among live connections, reusable after a soft delete', async () => {
    const sales = await ConnectionModel.create({ config_name: 'sales', type: 'POSTGRES', host: 'db', port: 5432, database_name: 'crm' });
    await expect(ConnectionModel.create({ config_name: 'sales' })).rejects.toMatchObject({ code: 11000, keyValue: { config_name: 'sales' } });
    const deleted = await ConnectionModel.findOneAndUpdate(
      { _id: sales._id, deleted_at: null }, { $set: { deleted_at: new Date() } }, { returnDocument: 'after' },
    ).lean();
    expect(deleted?.deleted_at).toBeInstanceOf(Date);
    expect(deleted?.updated_at.getTime()).toBeGreaterThanOrEqual(deleted?.created_at.getTime() ?? Infinity);
    await expect(ConnectionModel.create({ config_name: 'sales' })).resolves.toBeDefined();
    expect(await ConnectionModel.countDocuments({ config_name: 'sales', deleted_at: null })).toBe(1);
  });

  it('pages with sort, skip and limit, and deletes', async () => {
    await ConnectionModel.create(Array.from({ length: 5 }, (_, i) => ({ config_name: `page-${i}`, database_name: 'pages' })));
    const page = await ConnectionModel.find({ database_name: 'pages', deleted_at: null }).sort({ config_name: -1 }).skip(1).limit(2).lean();
    expect(page.map((c) => c.config_name)).toEqual(['page-3', 'page-2']);
    expect((await ConnectionModel.deleteMany({ database_name: 'pages' })).deletedCount).toBe(5);
  });

  it('answers the readiness ping', async () => {
    await expect(connection.db?.admin().ping()).resolves.toMatchObject({ ok: 1 });
  });

  it('saw no unknown command', () => {
    expect(target.unknownCommands()).toEqual([]);
  });
});
