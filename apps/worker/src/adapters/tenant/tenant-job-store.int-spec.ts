import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { createTenantMongoPool, type TenantConfig, type TenantMongo, type TenantPool } from '@fetcher/platform';
import { encodeCancelRequest, encodeLease, uuidToBinary } from '@fetcher/contracts';
import { MongoClient } from 'mongodb';
import type { JobStore } from '../../ports/job-store.port';
import { jobStoreContract } from '../../testing/job-store.contract';
import { NoTenantInScopeError, TenantScope } from '../../tenancy/tenant-scope';
import { TenantJobStore } from './tenant-job-store';

/** The store as one tenant's work sees it: every call within that tenant's scope. */
function within(scope: TenantScope, tenantId: string, store: JobStore): JobStore {
  return new Proxy(store, {
    get: (target, name: keyof JobStore) => {
      const member = target[name];
      return typeof member === 'function' ? (...args: unknown[]) => scope.run(tenantId, () => (member as (...a: unknown[]) => unknown).apply(target, args)) : member;
    },
  });
}

describe('TenantJobStore: the job store contract on each tenant\'s own database', () => {
  const id = randomUUID().slice(0, 6);
  const database = (tenantId: string) => `tjs_${id}_${tenantId}`;
  let target: MongoTestTarget;
  let client: MongoClient;
  let pool: TenantPool<TenantMongo>;
  const scope = new TenantScope();
  let sut: TenantJobStore;

  beforeAll(async () => {
    target = await withMongo();
    client = await new MongoClient(target.uri).connect();
    const configOf = (tenantId: string): Promise<TenantConfig> =>
      Promise.resolve({ databases: { fetcher: { mongodb: { uri: target.uri, database: database(tenantId) } } } } as unknown as TenantConfig);
    // A cap of one: every switch of tenant evicts the other's client.
    pool = createTenantMongoPool({ configOf, maxTenants: 1, idleTimeoutMs: 60_000, sweepIntervalMs: 0 });
    sut = new TenantJobStore(scope, pool);
  });

  afterAll(async () => {
    await pool?.closeAll();
    await client?.close();
    await target?.close();
  });

  describe('the job store contract, within tenant acme', () => {
    jobStoreContract(() => ({
      store: within(scope, 'acme', sut),
      seed: async ({ id: jobId, status, createdAt, lease, cancelRequestedAt, metadata }) => {
        await client.db(database('acme')).collection('job').insertOne({
          _id: uuidToBinary(jobId),
          status,
          dedup_active: status === 'pending' || status === 'processing',
          metadata: { source: 'reporter', ...metadata },
          mapped_fields: { crm: { users: ['id'] } },
          created_at: createdAt,
          ...(lease ? { lease: encodeLease(lease) } : {}),
          ...(cancelRequestedAt ? encodeCancelRequest(cancelRequestedAt) : {}),
        } as never);
      },
    }));
  });

  it('sees only the jobs of the tenant in scope, across evictions of the other tenant\'s client', async () => {
    const jobId = randomUUID();
    await client.db(database('beta')).collection('job').insertOne({ _id: uuidToBinary(jobId), status: 'pending', dedup_active: true, metadata: {}, created_at: new Date() } as never);
    const before = pool.stats().disposed.lru;
    expect(await scope.run('beta', () => sut.find(jobId))).toMatchObject({ id: jobId, status: 'pending' });
    expect(await scope.run('acme', () => sut.find(jobId))).toBeUndefined();
    expect(await scope.run('beta', () => sut.find(jobId))).toMatchObject({ id: jobId });
    expect(pool.stats().disposed.lru).toBeGreaterThanOrEqual(before + 2);
  });

  it('refuses to work outside a tenant\'s scope: there is no shared database', async () => {
    await expect(sut.find(randomUUID())).rejects.toBeInstanceOf(NoTenantInScopeError);
    await expect(sut.pendingEvents(10)).rejects.toBeInstanceOf(NoTenantInScopeError);
  });
});
