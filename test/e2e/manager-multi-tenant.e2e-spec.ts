import { randomUUID } from 'node:crypto';
import { verifyEnvelope } from '@fetcher/platform';
import amqplib, { type GetMessage } from 'amqplib';
import { Redis } from 'ioredis';
import { MT_E2E_WORK_QUEUE as WORK_QUEUE, type MultiTenantManager, startMultiTenantManager, startTenantServices, type TenantServices } from './support/multi-tenant-manager';

/**
 * Multi-tenant mode end to end, on real services: the Manager (in this process, listening on a
 * port) with the tenant-manager test server, the MongoDB test server (a database per tenant), a
 * RabbitMQ vhost per tenant, and Redis. Two tenants, each with a token of its own: each stores a
 * connection and a job in its own database, its job message lands in its own vhost signed for it,
 * and neither can see, change or cancel what the other has (404, so ids do not leak). A suspended
 * tenant gets 403 0131.
 */
describe('multi-tenant Manager: two tenants, isolated end to end', () => {
  const suffix = randomUUID().slice(0, 8);
  let services: TenantServices;
  let manager: MultiTenantManager;
  let base: string;

  beforeAll(async () => {
    services = await startTenantServices(suffix, { acme: 'active', globex: 'active', paused: 'suspended' });
    manager = await startMultiTenantManager({ id: suffix, mongoUri: services.mongo.uri, tenantManagerUrl: services.tenantManager.url, apiKey: services.apiKey });
    base = manager.base;
  });
  afterAll(async () => {
    await manager?.close();
    await services?.close();
  });

  const call = (...args: Parameters<MultiTenantManager['call']>) => manager.call(...args);

  async function messagesIn(tenantId: string): Promise<GetMessage[]> {
    const model = await amqplib.connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(services.vhosts.byTenant(tenantId).vhost)}`);
    try {
      const channel = await model.createChannel();
      const out: GetMessage[] = [];
      for (let m = await channel.get(WORK_QUEUE, { noAck: true }); m; m = await channel.get(WORK_QUEUE, { noAck: true })) out.push(m);
      return out;
    } finally {
      await model.close();
    }
  }

  const state: Record<string, { connectionId: string; jobId: string }> = {};

  it('lets each tenant store a connection and a job in its own database, and sends the job to its own vhost, signed for it', async () => {
    for (const tenantId of ['acme', 'globex']) {
      const created = await call(tenantId, 'POST', '/v1/management/connections', {
        configName: 'pg-main', type: 'POSTGRESQL', host: '127.0.0.1', port: 5432, databaseName: 'test', userName: 'postgres', password: 'trust',
      }, { 'x-product-name': 'reporter' });
      expect(created.status).toBe(201);
      const job = await call(tenantId, 'POST', '/v1/fetcher', {
        dataRequest: { mappedFields: { midaz_onboarding: { accounts: ['id'] } } },
        metadata: { source: 'reporter', tenant: tenantId },
      });
      expect(job.status).toBe(202);
      state[tenantId] = { connectionId: created.body.id as string, jobId: job.body.jobId as string };
      // Stored in the tenant's own database, nowhere else.
      expect(await services.db(tenantId).collection('connection').countDocuments()).toBe(1);
      expect(await services.db(tenantId).collection('job').countDocuments()).toBe(1);
    }
    expect(await services.db('paused').collection('job').countDocuments()).toBe(0);

    for (const tenantId of ['acme', 'globex']) {
      const messages = await messagesIn(tenantId);
      expect(messages.map((m) => [m.properties.headers?.jobId, m.properties.headers?.['X-Tenant-ID']])).toEqual([[state[tenantId].jobId, tenantId]]);
      const [message] = messages;
      expect(verifyEnvelope({ keys: [manager.internalHmac], headers: message.properties.headers, body: message.content, exchange: '', routingKey: WORK_QUEUE, now: new Date() }))
        .toMatchObject({ ok: true, tenantId, jobId: state[tenantId].jobId });
    }
  });

  it('keeps tenants apart: one never lists, reads, tests, changes, deletes or cancels the other\'s connections and jobs (404)', async () => {
    const acme = state.acme;
    const globex = state.globex;
    const listed = await call('acme', 'GET', '/v1/management/connections', undefined, { 'x-product-name': 'reporter' });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(acme.connectionId);
    expect(JSON.stringify(listed.body)).not.toContain(globex.connectionId);

    expect((await call('acme', 'GET', `/v1/management/connections/${globex.connectionId}`, undefined, { 'x-product-name': 'reporter' })).status).toBe(404);
    expect((await call('acme', 'POST', `/v1/management/connections/${globex.connectionId}/test`, undefined, { 'x-product-name': 'reporter' })).status).toBe(404);
    expect((await call('acme', 'PATCH', `/v1/management/connections/${globex.connectionId}`, { port: 5433 }, { 'x-product-name': 'reporter' })).status).toBe(404);
    expect((await call('acme', 'DELETE', `/v1/management/connections/${globex.connectionId}`, undefined, { 'x-product-name': 'reporter' })).status).toBe(404);
    expect((await call('acme', 'GET', `/v1/fetcher/${globex.jobId}`)).status).toBe(404);
    expect((await call('acme', 'POST', `/v1/fetcher/${globex.jobId}/cancel`)).status).toBe(404);

    // The other tenant's records are untouched, and each tenant still reads its own.
    expect((await call('globex', 'GET', `/v1/management/connections/${globex.connectionId}`, undefined, { 'x-product-name': 'reporter' })).status).toBe(200);
    const job = await call('globex', 'GET', `/v1/fetcher/${globex.jobId}`);
    expect(job.status).toBe(200);
    expect(job.body.status).toBe('pending');
    expect((await call('acme', 'GET', `/v1/fetcher/${acme.jobId}`)).status).toBe(200);
  });

  it('refuses a suspended tenant with 403 0131, and a tenant the tenant-manager does not know with 404', async () => {
    const suspended = await call('paused', 'GET', '/v1/management/connections', undefined, { 'x-product-name': 'reporter' });
    expect(suspended.status).toBe(403);
    expect(suspended.body).toMatchObject({ code: '0131', title: 'Service Suspended' });
    const unknown = await call('nobody', 'GET', '/v1/management/connections', undefined, { 'x-product-name': 'reporter' });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'TENANT_NOT_FOUND' } });
  });

  it('reports readiness for multi-tenant mode, and per tenant on /readyz/tenant/:id', async () => {
    const readyz = (await (await fetch(`${base}/readyz`)).json()) as { status: string; checks: Record<string, Record<string, unknown>> };
    expect(readyz.checks).toMatchObject({
      mongodb: { status: 'n/a', reason: 'multi-tenant: see /readyz/tenant/:id' },
      rabbitmq: { status: 'n/a' },
      redis: { status: 'up' },
      multi_tenant_redis: { status: 'up' },
      tenant_manager: { status: 'up' },
    });
    expect(readyz.status).toBe('healthy');
    const acme = await fetch(`${base}/readyz/tenant/acme`);
    expect(acme.status).toBe(200);
    expect(await acme.json()).toMatchObject({ status: 'healthy', tenant_id: 'acme', checks: { mongodb: { status: 'up' }, rabbitmq: { status: 'up' } } });
    const paused = await fetch(`${base}/readyz/tenant/paused`);
    expect(paused.status).toBe(404);
    expect(await paused.json()).toEqual({ error: 'tenant not found', tenant_id: 'paused' });
  });

  it('acts on a tenant.service.suspended event at once: that tenant is refused (403 0131) before its cached config expires, the other keeps working', async () => {
    expect((await call('acme', 'GET', `/v1/fetcher/${state.acme.jobId}`)).status).toBe(200); // acme's config is cached now
    services.tenantManager.putTenant('acme', services.record('acme', 'suspended'));
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      await redis.publish('tenant-events:staging:', JSON.stringify({
        event_id: randomUUID(), event_type: 'tenant.service.suspended', tenant_id: 'acme', timestamp: new Date().toISOString(), payload: { service_name: 'fetcher' },
      }));
    } finally {
      await redis.quit();
    }
    // Without the event the cached config (120 s) would keep admitting acme; bounded wait for the listener.
    const deadline = Date.now() + 10_000;
    let answer = await call('acme', 'GET', `/v1/fetcher/${state.acme.jobId}`);
    while (answer.status === 200 && Date.now() < deadline) answer = await call('acme', 'GET', `/v1/fetcher/${state.acme.jobId}`);
    expect(answer).toMatchObject({ status: 403, body: { code: '0131' } });
    expect((await call('globex', 'GET', `/v1/fetcher/${state.globex.jobId}`)).status).toBe(200);
  });
});
