import { randomUUID } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { createTenantMongoPool, type TenantConfig } from '@fetcher/platform';
import { MongoClient } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { activeExecutionCheckerContract } from '../../testing/active-execution-checker.contract';
import { connectionRepositoryContract } from '../../testing/connection-repository.contract';
import { jobRepositoryContract } from '../../testing/job-repository.contract';
import { provisionTenantIndexes } from '../../testing/tenant-indexes';
import { TenantDatabases, tenantActiveExecutionChecker, tenantConnectionRepository, tenantJobRepository } from './tenant-databases';

/**
 * The multi-tenant stores: each call goes to the database the tenant's config names. The contracts
 * run as tenant `default` (their fixed tenant) with a second tenant's database next to it, and every
 * test ends by checking that nothing reached the other tenant's database.
 */
describe('tenant-scoped MongoDB stores against the MongoDB test server, two tenant databases', () => {
  let target: MongoTestTarget;
  let admin: MongoClient;
  /** The tenant configs the pool reads, as the tenant-manager would answer them; replaced per test. */
  let databaseOf: Record<string, string> = {};
  let databases: TenantDatabases;

  const configOf = (tenantId: string): Promise<TenantConfig> => {
    const database = databaseOf[tenantId];
    if (!database) return Promise.reject(new Error(`unknown tenant ${tenantId}`));
    return Promise.resolve({ id: tenantId, tenantSlug: tenantId, databases: { fetcher: { mongodb: { uri: target.uri, database } } } } as unknown as TenantConfig);
  };

  beforeAll(async () => {
    target = await withMongo();
    admin = await new MongoClient(target.uri).connect();
  });
  afterAll(async () => {
    await admin.close();
    await target.close();
  });

  beforeEach(async () => {
    const suffix = randomUUID().slice(0, 8);
    databaseOf = { default: `tenant_a_${suffix}`, other: `tenant_b_${suffix}` };
    for (const name of Object.values(databaseOf)) await provisionTenantIndexes(admin.db(name));
    databases = new TenantDatabases(createTenantMongoPool({ configOf, maxTenants: 4, idleTimeoutMs: 60_000, sweepIntervalMs: 0 }));
  });
  afterEach(async () => {
    // The second tenant's database holds nothing but its indexes: every write went to the caller's.
    for (const collection of ['connection', 'job']) expect(await admin.db(databaseOf.other).collection(collection).countDocuments()).toBe(0);
    await databases.close();
    for (const name of Object.values(databaseOf)) await admin.db(name).dropDatabase();
  });

  describe('the connection repository contract', () => {
    connectionRepositoryContract(() => tenantConnectionRepository(databases));
  });

  describe('the job repository contract', () => {
    jobRepositoryContract(() => tenantJobRepository(databases));
  });

  describe('the active execution checker contract', () => {
    activeExecutionCheckerContract(() => ({ checker: tenantActiveExecutionChecker(databases), jobs: tenantJobRepository(databases) }));
  });

  describe('isolation', () => {
    const a = createTenantContext('default');
    const b = createTenantContext('third');

    it('keeps each tenant in its own database: one tenant never reads, changes or counts another\'s records', async () => {
      databaseOf.third = `tenant_c_${randomUUID().slice(0, 8)}`;
      await provisionTenantIndexes(admin.db(databaseOf.third));
      try {
        const connections = tenantConnectionRepository(databases);
        const jobs = tenantJobRepository(databases);
        const at = new Date('2026-01-01T00:00:00Z');
        const stored = {
          id: uuidv7(), productName: 'demo', configName: 'db1', type: 'POSTGRESQL' as const, host: '127.0.0.1', port: 5432,
          databaseName: 'postgres', userName: 'postgres', passwordEncrypted: 'x', keyVersion: '1', createdAt: at, updatedAt: at,
        };
        await connections.insert(a, stored);
        // The same config name is free in the other tenant: names are unique per tenant database.
        await connections.insert(b, { ...stored, id: uuidv7() });
        const job = {
          id: uuidv7(), status: 'pending' as const, mappedFields: { db1: { t: ['a'] } }, metadata: { source: 'demo' }, requestHash: 'h',
          createdAt: at, completedAt: null, dispatchedAt: null, dispatchAttempts: 0,
        };
        expect(await jobs.insert(a, job)).toBe('inserted');

        expect(await connections.findLiveById(b, stored.id)).toBeUndefined();
        expect(await connections.softDelete(b, stored.id, at)).toBe(false);
        expect((await connections.list(b, { page: 1, limit: 10, sortOrder: 'desc', filter: {} })).total).toBe(1);
        expect(await jobs.findById(b, job.id)).toBeUndefined();
        expect(await jobs.requestCancel(b, job.id, at)).toBeUndefined();
        expect(await tenantActiveExecutionChecker(databases).hasActiveExecutions(b, 'db1')).toBe(false);
        expect(await tenantActiveExecutionChecker(databases).hasActiveExecutions(a, 'db1')).toBe(true);
        expect((await jobs.findById(a, job.id))?.status).toBe('pending');
        expect(await admin.db(databaseOf.default).collection('job').countDocuments()).toBe(1);
        expect(await admin.db(databaseOf.third).collection('job').countDocuments()).toBe(0);
      } finally {
        await admin.db(databaseOf.third).dropDatabase();
        delete databaseOf.third;
      }
    });

    it('answers a tenant whose config names no database with 503, and never falls back to another store', async () => {
      const broken = new TenantDatabases(createTenantMongoPool({
        configOf: (tenantId) => Promise.resolve({ id: tenantId, tenantSlug: tenantId, databases: {} } as TenantConfig),
        maxTenants: 2, idleTimeoutMs: 60_000, sweepIntervalMs: 0,
      }));
      try {
        await expect(tenantJobRepository(broken).findById(a, uuidv7())).rejects.toMatchObject({ category: 'unavailable', code: 'SERVICE_UNAVAILABLE' });
      } finally {
        await broken.close();
      }
    });
  });

  it('used only commands the server knows', () => expect(target.unknownCommands()).toEqual([]));
});
