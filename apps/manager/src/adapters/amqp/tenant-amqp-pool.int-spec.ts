import { randomBytes } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
import { createTenantAmqpPool, type TenantAmqp, type TenantConfig, type TenantPool } from '@fetcher/platform';
import { createTenantVhosts, type TenantVhosts } from '@fetcher/platform/testing';
import amqplib, { type ChannelModel } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../../jobs/job';
import { FakeClock } from '../../testing/fake-clock';
import { TenantAmqpJobPublisher } from './tenant-job-publisher.amqp';

const WORK_QUEUE = 'fetcher.extract-external-data.queue';
const CAP = 2;
const IDLE_MS = 300_000;

function aJob(): Job {
  return {
    id: uuidv7(), status: 'pending', mappedFields: { 'pg-main': { t: ['a'] } }, metadata: { source: 'reporter' }, requestHash: 'h',
    createdAt: new Date('2026-12-06T10:00:00.000Z'), completedAt: null, dispatchedAt: null, dispatchAttempts: 0,
  };
}

/** Resolves once the TCP connection under a pooled vhost connection has closed. */
function socketClosed(amqp: TenantAmqp): Promise<void> {
  const model = amqp.connection.connection as unknown as { connection: { stream: NodeJS.EventEmitter & { destroyed: boolean } } } | undefined;
  const stream = model?.connection.stream;
  if (!stream || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

/**
 * The Manager's per-tenant publisher connections at `MULTI_TENANT_MAX_TENANT_POOLS`, on real vhosts:
 * past the cap the least recently used connection is closed, an idle one is closed by the sweep, and
 * a publish for a tenant whose connection was closed opens a new one and is delivered.
 */
describe('the Manager\'s tenant vhost connections: eviction at the cap and when idle, reopened on demand', () => {
  const tenants = ['t1', 't2', 't3'];
  let vhosts: TenantVhosts;
  let pool: TenantPool<TenantAmqp>;
  let sut: TenantAmqpJobPublisher;
  let guest: ChannelModel[] = [];
  const clock = new FakeClock('2026-12-06T10:00:00Z');

  beforeAll(() => {
    vhosts = createTenantVhosts(tenants);
  });

  beforeEach(() => {
    pool = createTenantAmqpPool({
      configOf: (tenantId) => {
        const v = vhosts.byTenant(tenantId);
        return Promise.resolve({
          id: tenantId, tenantSlug: tenantId, messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: v.vhost, username: v.username, password: v.password } },
        } as unknown as TenantConfig);
      },
      maxTenants: CAP, idleTimeoutMs: IDLE_MS, sweepIntervalMs: 0, defaultTls: false, now: () => clock.now().getTime(),
    });
    sut = new TenantAmqpJobPublisher(pool, { workQueue: WORK_QUEUE, signingKey: randomBytes(32) }, clock);
  });

  afterEach(async () => {
    await pool.closeAll();
    for (const model of guest) await model.close().catch(() => undefined);
    guest = [];
  });

  afterAll(() => vhosts?.cleanup());

  /** The ids of the jobs waiting in the tenant's work queue (read as guest, removed). */
  async function jobsIn(tenantId: string): Promise<string[]> {
    const model = await amqplib.connect(`amqp://guest:guest@127.0.0.1:5672/${encodeURIComponent(vhosts.byTenant(tenantId).vhost)}`);
    guest.push(model);
    const channel = await model.createChannel();
    const ids: string[] = [];
    for (let m = await channel.get(WORK_QUEUE, { noAck: true }); m; m = await channel.get(WORK_QUEUE, { noAck: true })) ids.push(String(m.properties.headers?.jobId));
    return ids;
  }
  const publish = async (tenantId: string): Promise<string> => {
    const job = aJob();
    await sut.publishExtractionRequested(createTenantContext(tenantId), job, 'r');
    return job.id;
  };
  /** The tenant's pooled connection, without changing which one was used least recently. */
  const held = async (tenantId: string): Promise<TenantAmqp> => {
    const lease = await pool.acquire(tenantId);
    lease.release();
    return lease.resource;
  };

  it(`holds at most ${CAP} tenants' connections: a new tenant closes the least recently used, which reopens on its next publish`, async () => {
    await publish('t1');
    const first = await held('t1'); // t1 used last now: t2 will be the least recently used
    const t2 = await held('t2');
    await publish('t1');
    const t2Closed = socketClosed(t2);
    expect(pool.tenants().sort()).toEqual(['t1', 't2']);

    const j3 = await publish('t3');
    await t2Closed;
    expect(t2.connection.isConnected()).toBe(false);
    expect(first.connection.isConnected()).toBe(true);
    expect(pool.tenants().sort()).toEqual(['t1', 't3']);
    expect(pool.stats()).toMatchObject({ size: CAP, opened: 3, disposed: { lru: 1 } });

    // t2 publishes again: a new connection (t1 is now the least recently used, and goes).
    const t1Closed = socketClosed(first);
    const j2 = await publish('t2');
    await t1Closed;
    expect(pool.tenants().sort()).toEqual(['t2', 't3']);
    expect(pool.stats()).toMatchObject({ size: CAP, opened: 4, disposed: { lru: 2 } });
    expect(await jobsIn('t2')).toEqual([j2]);
    expect(await jobsIn('t3')).toEqual([j3]);
    expect(await jobsIn('t1')).toHaveLength(2);
  });

  it('never closes a connection in use: a publish in flight keeps its tenant\'s connection past the cap', async () => {
    const inUse = await pool.acquire('t1');
    try {
      await publish('t2');
      await publish('t3'); // t1 is the least recently used, but leased: t2 goes instead
      expect(pool.tenants().sort()).toEqual(['t1', 't3']);
      expect(inUse.resource.connection.isConnected()).toBe(true);
      expect(pool.stats().disposed.lru).toBe(1);
    } finally {
      inUse.release();
    }
  });

  it(`closes connections unused for MULTI_TENANT_IDLE_TIMEOUT_SEC, and reopens one for the next publish`, async () => {
    await publish('t1');
    const t1 = await held('t1');
    clock.advance(IDLE_MS / 2);
    await publish('t2');
    clock.advance(IDLE_MS / 2);
    // t1 unused for the whole timeout; t2 for half of it.
    const t1Closed = socketClosed(t1);
    expect(await pool.sweepIdle()).toBe(1);
    await t1Closed;
    expect(pool.tenants()).toEqual(['t2']);

    const again = await publish('t1');
    expect(pool.stats()).toMatchObject({ opened: 3, disposed: { idle: 1 } });
    expect((await held('t1')).connection.isConnected()).toBe(true);
    expect(await jobsIn('t1')).toEqual([expect.any(String), again]);
  });
});
