import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { TenantConsumers } from './tenant-consumers';
import { TenantResources } from './tenant-resources';
import { header, type MultiTenantWorld, startMultiTenantWorld, uuidBinary } from '../testing/multi-tenant-world';

describe('the Worker in multi-tenant mode: each tenant\'s job on its own database, vhost and object prefix', () => {
  const suffix = randomUUID().slice(0, 6);
  const acme = `acme${suffix}`;
  const beta = `beta${suffix}`;
  let w: MultiTenantWorld;

  beforeAll(async () => {
    w = await startMultiTenantWorld([acme, beta], ['a_rows', 'b_rows']);
  });

  afterAll(async () => {
    await w?.close();
  });

  it('runs each tenant\'s job against its own database; results under {tenantId}/, events on its own vhost', async () => {
    const jobA = randomUUID();
    const jobB = randomUUID();
    w.publish(acme, acme, jobA, await w.seed(acme, jobA, 'a_rows'));
    w.publish(beta, beta, jobB, await w.seed(beta, jobB, 'b_rows'));

    const eventA = await w.events.get(acme)!.next((m) => header(m, 'ce-subject') === jobA);
    const eventB = await w.events.get(beta)!.next((m) => header(m, 'ce-subject') === jobB);
    expect(header(eventA, 'ce-type')).toBe('studio.lerian.job.completed');
    expect(header(eventA, 'ce-tenantid')).toBe(acme);
    expect(header(eventA, 'X-Tenant-ID')).toBe(acme);
    expect(header(eventB, 'ce-tenantid')).toBe(beta);
    // Each vhost carries its own tenant's events only.
    expect(w.events.get(acme)!.seen.some((m) => header(m, 'ce-subject') === jobB)).toBe(false);
    expect(w.events.get(beta)!.seen.some((m) => header(m, 'ce-subject') === jobA)).toBe(false);

    const docA = await w.db(acme).collection('job').findOne({ _id: uuidBinary(jobA) } as never);
    expect(docA).toMatchObject({ status: 'completed', result_path: `${acme}/external-data/${jobA}.json` });
    // Nothing of acme's job reached beta's database, and the other way round.
    expect(await w.db(beta).collection('job').findOne({ _id: uuidBinary(jobA) } as never)).toBeNull();
    expect(await w.db(acme).collection('job').findOne({ _id: uuidBinary(jobB) } as never)).toBeNull();

    const resultA = await w.readResult(`${w.prefix}${acme}/external-data/${jobA}.json`);
    expect(JSON.parse(resultA.plaintext)).toEqual({ 'pg-main': { [`${w.schema}.a_rows`]: [{ id: 1, who: 'a_rows' }] } });
    expect(resultA.hmac).toBe(docA?.result_hmac);
    const resultB = await w.readResult(`${w.prefix}${beta}/external-data/${jobB}.json`);
    expect(JSON.parse(resultB.plaintext)).toEqual({ 'pg-main': { [`${w.schema}.b_rows`]: [{ id: 2, who: 'b_rows' }] } });

    const keys = (await w.listObjects()).filter((k) => k.includes(jobA) || k.includes(jobB));
    expect(keys.sort()).toEqual([`${w.prefix}${acme}/external-data/${jobA}.json`, `${w.prefix}${beta}/external-data/${jobB}.json`].sort());
  });

  it('dead-letters a message signed for one tenant that was published into another tenant\'s vhost', async () => {
    const jobA = randomUUID();
    const mapped = await w.seed(acme, jobA, 'a_rows');
    w.publish(beta, acme, jobA, mapped);
    const dead = await w.deadLetters.get(beta)!.next((m) => header(m, 'jobId') === jobA);
    expect(header(dead, 'X-Tenant-ID')).toBe(acme);
    // It ran nowhere: acme's job is still pending, and beta's database never heard of it.
    expect(await w.db(acme).collection('job').findOne({ _id: uuidBinary(jobA) } as never)).toMatchObject({ status: 'pending' });
    expect(await w.db(beta).collection('job').findOne({ _id: uuidBinary(jobA) } as never)).toBeNull();
    const metrics = await (await fetch(`http://127.0.0.1:${w.port}/metrics`)).text();
    expect(metrics).toMatch(/fetcher_worker_messages_rejected_total\{reason="tenant_mismatch"\} 1/);
  });

  it('reads an internal datasource from the tenant\'s own ledger config; a tenant without one cannot use it', async () => {
    const base = w.record(acme);
    const ledger = { id: acme, tenantSlug: acme, databases: { onboarding: { postgresql: { host: '127.0.0.1', port: 5432, database: 'postgres', username: 'postgres' } } } };
    w.tm.putTenant(acme, { ...base, services: { ...base.services, ledger } });
    const jobA = randomUUID();
    const jobB = randomUUID();
    w.publish(acme, acme, jobA, await w.seed(acme, jobA, 'a_rows', 'midaz_onboarding'));
    w.publish(beta, beta, jobB, await w.seed(beta, jobB, 'a_rows', 'midaz_onboarding'));

    const eventA = await w.events.get(acme)!.next((m) => header(m, 'ce-subject') === jobA);
    expect(header(eventA, 'ce-type')).toBe('studio.lerian.job.completed');
    const resultA = await w.readResult(`${w.prefix}${acme}/external-data/${jobA}.json`);
    expect(JSON.parse(resultA.plaintext)).toEqual({ midaz_onboarding: { [`${w.schema}.a_rows`]: [{ id: 1, who: 'a_rows' }] } });

    const eventB = await w.events.get(beta)!.next((m) => header(m, 'ce-subject') === jobB);
    expect(header(eventB, 'ce-type')).toBe('studio.lerian.job.failed');
    expect(await w.db(beta).collection('job').findOne({ _id: uuidBinary(jobB) } as never)).toMatchObject({ status: 'failed' });
  });

  it('stops a tenant\'s consumer on a tenant.suspended event, while the other tenant\'s jobs keep running', async () => {
    const consumers = w.app.get(TenantConsumers);
    expect(consumers.isConsuming(acme)).toBe(true);
    const stopped = consumers.whenStopped(acme);
    w.tm.putTenant(acme, { ...w.record(acme), status: 'suspended' });
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      await redis.publish('tenant-events:staging:', JSON.stringify({ event_type: 'tenant.suspended', tenant_id: acme, timestamp: new Date().toISOString() }));
    } finally {
      redis.disconnect();
    }
    try {
      await stopped;
      expect(consumers.isConsuming(acme)).toBe(false);
      await consumers.settled(acme); // the rest of the removal: its database client and vhost connection closed
      expect(w.app.get(TenantResources).amqp.has(acme)).toBe(false);
      expect(w.app.get(TenantResources).mongo.has(acme)).toBe(false);

      const jobB = randomUUID();
      w.publish(beta, beta, jobB, await w.seed(beta, jobB, 'b_rows'));
      const eventB = await w.events.get(beta)!.next((m) => header(m, 'ce-subject') === jobB);
      expect(header(eventB, 'ce-type')).toBe('studio.lerian.job.completed');
    } finally {
      w.tm.putTenant(acme, w.record(acme));
    }
  });

  it('reports the shared database and vhost as n/a on /readyz, with the tenant-manager and the events Redis', async () => {
    const res = await fetch(`http://127.0.0.1:${w.port}/readyz`);
    const body = (await res.json()) as { checks: Record<string, { status: string }> };
    expect(res.status).toBe(200);
    expect(body.checks).toMatchObject({
      mongodb: { status: 'n/a' }, rabbitmq: { status: 'n/a' }, s3: { status: 'up' }, multi_tenant_redis: { status: 'up' }, tenant_manager: { status: 'up' },
    });
  });

  it('probes one tenant\'s database and vhost on /readyz/tenant/<id>, and answers 404 for a tenant that is not active', async () => {
    const res = await fetch(`http://127.0.0.1:${w.port}/readyz/tenant/${acme}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ tenant_id: acme, checks: { mongodb: { status: 'up' }, rabbitmq: { status: 'up' } } });
    const unknown = await fetch(`http://127.0.0.1:${w.port}/readyz/tenant/nobody${suffix}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'tenant not found', tenant_id: `nobody${suffix}` });
  });
});

describe('the Worker in multi-tenant mode: many tenants at once with fewer database pools than tenants', () => {
  const suffix = randomUUID().slice(0, 6);
  const TENANTS = 20;
  const JOBS = 5;
  const CAP = 8;
  const tenants = Array.from({ length: TENANTS }, (_, i) => `t${i}x${suffix}`);
  let w: MultiTenantWorld;

  beforeAll(async () => {
    w = await startMultiTenantWorld(tenants, ['rows'], { MULTI_TENANT_MAX_TENANT_POOLS: String(CAP) });
  });

  afterAll(async () => {
    await w?.close();
  });

  /** A sample of the Worker's `/metrics`, by its exact label set. */
  async function metric(name: string, labels: string): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${w.port}/metrics`)).text();
    const series = labels ? `${name}{${labels}} ` : `${name} `;
    const line = text.split('\n').find((l) => l.startsWith(series));
    return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  // A hundred jobs share one process with the Worker and the MongoDB test server: on a 2-core machine
  // at load average 20 they took half a minute, at 37 a minute and a half, so the bound on a hang is
  // wider than the integration default.
  it(`completes ${TENANTS} tenants x ${JOBS} jobs published at once, each under its tenant, evicting database clients past the cap of ${CAP}`, async () => {
    expect(await metric('worker_tenant_consumer_active', '')).toBe(TENANTS); // one Worker consumes every tenant's vhost
    const jobs = tenants.flatMap((tenantId) => Array.from({ length: JOBS }, () => ({ tenantId, jobId: randomUUID() })));
    for (const { tenantId, jobId } of jobs) await w.seed(tenantId, jobId, 'rows');
    const evictedBefore = await metric('worker_tenant_pool_evictions_total', 'pool="mongodb",reason="lru"');
    for (const { tenantId, jobId } of jobs) w.publish(tenantId, tenantId, jobId, { 'pg-main': { [`${w.schema}.rows`]: ['*'] } });

    const events = await Promise.all(jobs.map(({ tenantId, jobId }) => w.events.get(tenantId)!.next((m) => header(m, 'ce-subject') === jobId)));
    expect(events.map((e) => header(e, 'ce-type'))).toEqual(jobs.map(() => 'studio.lerian.job.completed'));
    expect(events.map((e) => header(e, 'ce-tenantid'))).toEqual(jobs.map((j) => j.tenantId));

    const keys = new Set(await w.listObjects());
    for (const { tenantId, jobId } of jobs) {
      expect(await w.db(tenantId).collection('job').findOne({ _id: uuidBinary(jobId) } as never)).toMatchObject({ status: 'completed', result_path: `${tenantId}/external-data/${jobId}.json` });
      expect(keys.has(`${w.prefix}${tenantId}/external-data/${jobId}.json`)).toBe(true);
    }
    const sample = jobs[JOBS * (TENANTS - 1)];
    const result = await w.readResult(`${w.prefix}${sample.tenantId}/external-data/${sample.jobId}.json`);
    expect(JSON.parse(result.plaintext)).toEqual({ 'pg-main': { [`${w.schema}.rows`]: [{ id: 1, who: 'rows' }] } });

    // More tenants than database pools: the Worker's metrics show clients closed to make room while the jobs ran.
    expect(await metric('worker_tenant_pool_evictions_total', 'pool="mongodb",reason="lru"')).toBeGreaterThan(evictedBefore);
    expect(await metric('worker_tenant_pool_evictions_total', 'pool="mongodb",reason="evicted"')).toBe(0);
  }, 300_000);
});
