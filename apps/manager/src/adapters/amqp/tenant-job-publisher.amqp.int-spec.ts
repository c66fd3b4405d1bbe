import { randomBytes, randomUUID } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
import { createTenantAmqpPool, type TenantAmqp, type TenantConfig, type TenantPool, verifyEnvelope } from '@fetcher/platform';
import { createTenantVhosts, type TenantVhost, type TenantVhosts } from '@fetcher/platform/testing';
import amqplib, { type Channel, type ChannelModel } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../../jobs/job';
import { FakeClock } from '../../testing/fake-clock';
import { type DeliveredMessage, jobPublisherContract } from '../../testing/job-publisher.contract';
import { TenantAmqpJobPublisher } from './tenant-job-publisher.amqp';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

function rabbitConfig(tenantId: string, vhost: TenantVhost | undefined, port = 5672): TenantConfig {
  return {
    id: tenantId,
    tenantSlug: tenantId,
    ...(vhost ? { messaging: { rabbitmq: { host: '127.0.0.1', port, vhost: vhost.vhost, username: vhost.username, password: vhost.password } } } : {}),
  } as unknown as TenantConfig;
}

function aJob(): Job {
  return {
    id: uuidv7(), status: 'pending', mappedFields: { 'pg-main': { t: ['a'] } }, metadata: { source: 'reporter' }, requestHash: 'h',
    createdAt: new Date('2026-11-29T10:00:00.123Z'), completedAt: null, dispatchedAt: null, dispatchAttempts: 0,
  };
}

/** Reads a queue of one vhost as guest (the test setup grants guest every tenant vhost). */
async function openVhost(vhost: string): Promise<{ model: ChannelModel; channel: Channel }> {
  const model = await amqplib.connect(`${BROKER}/${encodeURIComponent(vhost)}`);
  return { model, channel: await model.createChannel() };
}

async function drain(channel: Channel, queue: string): Promise<DeliveredMessage[]> {
  const out: DeliveredMessage[] = [];
  for (let m = await channel.get(queue, { noAck: true }); m; m = await channel.get(queue, { noAck: true })) {
    out.push({ exchange: m.fields.exchange, routingKey: m.fields.routingKey, body: m.content, headers: m.properties.headers ?? {} });
  }
  return out;
}

describe('TenantAmqpJobPublisher against a real RabbitMQ, a vhost per tenant', () => {
  const pools: TenantPool<TenantAmqp>[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    // The publishers' connections close before their vhosts go.
    await Promise.all(pools.splice(0).map((pool) => pool.closeAll()));
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function poolFor(configOf: (tenantId: string) => TenantConfig): TenantPool<TenantAmqp> {
    const pool = createTenantAmqpPool({
      configOf: (tenantId) => Promise.resolve(configOf(tenantId)), maxTenants: 4, idleTimeoutMs: 60_000, sweepIntervalMs: 0, defaultTls: false, connectTimeoutMs: 3_000,
    });
    pools.push(pool);
    return pool;
  }

  async function vhostsFor(tenantIds: string[], workQueue?: string): Promise<TenantVhosts> {
    const vhosts = createTenantVhosts(tenantIds, workQueue ? { workQueue } : {});
    cleanups.push(() => vhosts.cleanup());
    return vhosts;
  }

  async function reader(vhost: string): Promise<Channel> {
    const { model, channel } = await openVhost(vhost);
    cleanups.push(() => model.close());
    return channel;
  }

  describe('the job publisher contract (multi-tenant: the tenant in X-Tenant-ID and in the signature)', () => {
    jobPublisherContract(async ({ workQueue, signingKey, clock }) => {
      const vhosts = await vhostsFor(['default', 'other'], workQueue);
      const mine = await reader(vhosts.byTenant('default').vhost);
      const theirs = await reader(vhosts.byTenant('other').vhost);
      cleanups.push(async () => {
        // Nothing ever reached the other tenant's vhost.
        expect(await drain(theirs, workQueue)).toEqual([]);
      });
      const pool = poolFor((tenantId) => rabbitConfig(tenantId, vhosts.byTenant(tenantId)));
      const delivered: DeliveredMessage[] = [];
      return {
        publisher: new TenantAmqpJobPublisher(pool, { workQueue, signingKey, confirmTimeoutMs: 2_000 }, clock),
        delivered: async () => {
          delivered.push(...(await drain(mine, workQueue)));
          return [...delivered];
        },
        // The tenant's config points at a port where nothing listens.
        broken: () => new TenantAmqpJobPublisher(poolFor((tenantId) => rabbitConfig(tenantId, vhosts.byTenant(tenantId), 1)), { workQueue, signingKey }, clock),
      };
    }, { multiTenant: true });
  });

  it('sends each tenant\'s job to its own vhost, signed for that tenant', async () => {
    const vhosts = await vhostsFor(['acme', 'globex']);
    const queue = 'fetcher.extract-external-data.queue';
    const key = randomBytes(32);
    const clock = new FakeClock(new Date());
    const sut = new TenantAmqpJobPublisher(poolFor((tenantId) => rabbitConfig(tenantId, vhosts.byTenant(tenantId))), { workQueue: queue, signingKey: key }, clock);
    const [acmeJob, globexJob] = [aJob(), aJob()];
    await sut.publishExtractionRequested(createTenantContext('acme'), acmeJob, 'r1');
    await sut.publishExtractionRequested(createTenantContext('globex'), globexJob, 'r2');
    for (const [tenantId, job] of [['acme', acmeJob], ['globex', globexJob]] as const) {
      const messages = await drain(await reader(vhosts.byTenant(tenantId).vhost), queue);
      expect(messages.map((m) => [m.headers.jobId, m.headers['X-Tenant-ID']])).toEqual([[job.id, tenantId]]);
      const [message] = messages;
      expect(verifyEnvelope({ keys: [key], headers: message.headers, body: message.body, exchange: '', routingKey: queue, now: clock.now() }))
        .toMatchObject({ ok: true, tenantId });
    }
  });

  it('refuses a tenant without messaging.rabbitmq (503) and a publish without a tenant, never using the default vhost', async () => {
    const sut = new TenantAmqpJobPublisher(poolFor((tenantId) => rabbitConfig(tenantId, undefined)), { workQueue: `q.${randomUUID()}`, signingKey: randomBytes(32) }, new FakeClock(new Date()));
    await expect(sut.publishExtractionRequested(createTenantContext('acme'), aJob(), 'r')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(sut.publishExtractionRequested({ tenantId: '' }, aJob(), 'r')).rejects.toMatchObject({ reason: 'no_tenant' });
  });

  it('fails a publish whose tenant vhost has no work queue (returned as unroutable)', async () => {
    const vhosts = await vhostsFor(['acme']);
    const sut = new TenantAmqpJobPublisher(poolFor((tenantId) => rabbitConfig(tenantId, vhosts.byTenant(tenantId))), { workQueue: `missing.${randomUUID()}`, signingKey: randomBytes(32) }, new FakeClock(new Date()));
    await expect(sut.publishExtractionRequested(createTenantContext('acme'), aJob(), 'r')).rejects.toMatchObject({ reason: 'unroutable' });
  });
});
