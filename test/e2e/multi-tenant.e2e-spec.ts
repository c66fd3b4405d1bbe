import { randomUUID } from 'node:crypto';
import { provisionTenantIndexes } from '@fetcher/manager/testing';
import { header, MT_WORK_QUEUE, type MultiTenantWorld, startMultiTenantWorld } from '@fetcher/worker/testing';
import { type MultiTenantManager, startMultiTenantManager } from './support/multi-tenant-manager';

/**
 * Multi-tenant mode end to end, Manager and Worker together on real services (the tenant-manager
 * test server, a vhost and a database per tenant, Redis, s3rver, PostgreSQL): each tenant, with its
 * own token, stores a connection and creates a job through the Manager; the Worker runs it from the
 * tenant's vhost against the tenant's database; the result lands under the tenant's prefix and
 * decrypts with the master key; neither tenant can see the other's job.
 */
describe('multi-tenant mode: Manager and Worker, two tenants end to end', () => {
  const suffix = randomUUID().slice(0, 6);
  const tenants = [`acme${suffix}`, `globex${suffix}`];
  let w: MultiTenantWorld;
  let manager: MultiTenantManager;

  beforeAll(async () => {
    // The Worker's world owns the vhosts, the databases and the tenant-manager; the Manager joins it.
    w = await startMultiTenantWorld(tenants, ['orders']);
    for (const tenantId of tenants) await provisionTenantIndexes(w.db(tenantId));
    manager = await startMultiTenantManager({
      id: suffix, mongoUri: w.mongoUri, tenantManagerUrl: w.tm.url, apiKey: w.apiKey, masterKey: w.masterKey, workQueue: MT_WORK_QUEUE,
    });
  });

  afterAll(async () => {
    await manager?.close();
    await w?.close();
  });

  const call = (...args: Parameters<MultiTenantManager['call']>) => manager.call(...args);

  it('runs each tenant\'s job from its own vhost and database; the result is under its prefix and the other tenant cannot see the job', async () => {
    const jobs: Record<string, string> = {};
    for (const tenantId of tenants) {
      const created = await call(tenantId, 'POST', '/v1/management/connections', {
        configName: 'pg-api', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'postgres', userName: 'postgres', password: 'trust',
      }, { 'x-product-name': 'reporter' });
      expect(created.status).toBe(201);
      const job = await call(tenantId, 'POST', '/v1/fetcher', {
        dataRequest: { mappedFields: { 'pg-api': { [`${w.schema}.orders`]: ['*'] } } },
        metadata: { source: 'reporter' },
      });
      expect(job.status).toBe(202);
      jobs[tenantId] = job.body.jobId as string;
    }

    for (const tenantId of tenants) {
      const jobId = jobs[tenantId];
      const event = await w.events.get(tenantId)!.next((m) => header(m, 'ce-subject') === jobId);
      expect(header(event, 'ce-type')).toBe('studio.lerian.job.completed');
      expect(header(event, 'ce-tenantid')).toBe(tenantId);

      const job = await call(tenantId, 'GET', `/v1/fetcher/${jobId}`);
      expect(job.status).toBe(200);
      expect(job.body).toMatchObject({ status: 'completed', resultPath: `${tenantId}/external-data/${jobId}.json` });
      const { plaintext, hmac } = await w.readResult(`${w.prefix}${tenantId}/external-data/${jobId}.json`);
      expect(hmac).toBe(job.body.resultHmac);
      expect(JSON.parse(plaintext)).toEqual({ 'pg-api': { [`${w.schema}.orders`]: [{ id: 1, who: 'orders' }] } });
    }
    // Ids do not leak across tenants: the other tenant's job is simply not found.
    expect((await call(tenants[1], 'GET', `/v1/fetcher/${jobs[tenants[0]]}`)).status).toBe(404);
    expect((await call(tenants[0], 'GET', `/v1/fetcher/${jobs[tenants[1]]}`)).status).toBe(404);
  });
});
