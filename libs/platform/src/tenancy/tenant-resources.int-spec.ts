import { randomUUID } from 'node:crypto';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { startTenantManagerTestServer, type TenantManagerTestServer } from '@fetcher/tenant-manager-test-server';
import { createTenantVhosts, type TenantVhost, type TenantVhosts } from '../testing/tenant-vhosts';
import { createTenantAmqpPool } from './tenant-amqp';
import { TenantManagerClient } from './tenant-manager-client';
import { createTenantMongoPool } from './tenant-mongo';
import { TenantResourceError } from './tenant-resource-error';

const WORK_QUEUE = 'fetcher.extract-external-data.queue';

describe('per-tenant MongoDB and RabbitMQ pools against the test servers and a real broker', () => {
  const apiKey = `key-${randomUUID()}`;
  const prefix = `pool${randomUUID().slice(0, 6)}`;
  let mongo: MongoTestServer;
  let tm: TenantManagerTestServer;
  let vhosts: TenantVhosts | undefined;
  let client: TenantManagerClient;

  const config = (id: string, v: TenantVhost | undefined) => ({
    id, tenantSlug: id,
    databases: { fetcher: { mongodb: { uri: mongo.uri, database: `${prefix}_${id}` } } },
    ...(v ? { messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: v.vhost, username: v.username, password: v.password } } } : {}),
  });

  beforeAll(async () => {
    mongo = await startMongoTestServer();
    vhosts = createTenantVhosts(['acme', 'beta']);
    tm = await startTenantManagerTestServer({
      tenants: {
        apiKey,
        tenants: {
          acme: { name: 'Acme', status: 'active', services: { fetcher: config('acme', vhosts.byTenant('acme')) } },
          beta: { name: 'Beta', status: 'active', services: { fetcher: config('beta', vhosts.byTenant('beta')) } },
          bare: { name: 'Bare', status: 'active', services: { fetcher: { id: 'bare', tenantSlug: 'bare' } } },
          // Beta's vhost with acme's password: the broker refuses it.
          wrong: {
            name: 'Wrong', status: 'active',
            services: { fetcher: config('wrong', { ...vhosts.byTenant('beta'), password: vhosts.byTenant('acme').password }) },
          },
        },
      },
    });
    client = new TenantManagerClient({ url: tm.url, apiKey, allowInsecureHttp: true });
  });

  afterAll(async () => {
    client?.close();
    await tm?.close();
    await mongo?.close();
    vhosts?.cleanup();
  });

  it('gives each tenant its own database, and never a shared one when the config has none', async () => {
    const pool = createTenantMongoPool({ configOf: (id) => client.getTenantConfig(id, 'fetcher'), maxTenants: 10, idleTimeoutMs: 60_000, sweepIntervalMs: 0 });
    try {
      await pool.use('acme', (m) => m.db.collection('job').insertOne({ _id: 'j1' as never, tenant: 'acme' }));
      await pool.use('beta', (m) => m.db.collection('job').insertOne({ _id: 'j1' as never, tenant: 'beta' }));
      expect(await pool.use('acme', (m) => m.db.collection('job').find().toArray())).toEqual([{ _id: 'j1', tenant: 'acme' }]);
      expect(await pool.use('beta', (m) => m.db.collection('job').find().toArray())).toEqual([{ _id: 'j1', tenant: 'beta' }]);
      expect(await pool.use('acme', (m) => Promise.resolve(m.db.databaseName))).toBe(`${prefix}_acme`);

      const refused = await pool.acquire('bare').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TenantResourceError);
      expect(refused).toMatchObject({ reason: 'mongodb_not_configured', field: 'databases.fetcher.mongodb' });
      expect(pool.has('bare')).toBe(false);
    } finally {
      await pool.closeAll();
    }
  });

  it('evicts the least recently used client past the cap and closes it', async () => {
    const pool = createTenantMongoPool({ configOf: (id) => client.getTenantConfig(id, 'fetcher'), maxTenants: 1, idleTimeoutMs: 60_000, sweepIntervalMs: 0 });
    try {
      const first = await pool.acquire('acme');
      const acmeClient = first.resource.client;
      first.release();
      await pool.use('beta', (m) => m.db.command({ ping: 1 }));
      expect(pool.tenants()).toEqual(['beta']);
      expect(pool.stats().disposed.lru).toBe(1);
      // The evicted client is closed: using it fails rather than leaking a socket per tenant.
      await expect(acmeClient.db('x').command({ ping: 1 })).rejects.toThrow();
    } finally {
      await pool.closeAll();
    }
  });

  it('connects to each tenant vhost with its own credentials, where only its queues are', async () => {
    const pool = createTenantAmqpPool({ configOf: (id) => client.getTenantConfig(id, 'fetcher'), defaultTls: false, maxTenants: 10, idleTimeoutMs: 60_000, sweepIntervalMs: 0 });
    const marker = `m-${randomUUID()}`;
    try {
      await pool.use('acme', async (amqp) => {
        expect(amqp.vhost).toBe(vhosts!.byTenant('acme').vhost);
        const channel = amqp.connection.createChannel();
        await channel.waitForConnect();
        await channel.sendToQueue(WORK_QUEUE, Buffer.from(marker), { persistent: false });
        await channel.close();
      });
      const count = (id: string) => pool.use(id, async (amqp) => {
        const channel = amqp.connection.createChannel();
        try {
          await channel.waitForConnect();
          return (await channel.checkQueue(WORK_QUEUE)).messageCount;
        } finally {
          await channel.close();
        }
      });
      expect(await count('acme')).toBe(1);
      expect(await count('beta')).toBe(0);

      const refused = await pool.acquire('wrong').catch((e: unknown) => e);
      expect(refused).toMatchObject({ reason: 'unreachable', field: 'rabbitmq' });
      expect(String(refused)).not.toContain(vhosts!.byTenant('acme').password);
      expect(pool.has('wrong')).toBe(false);

      const unconfigured = await pool.acquire('bare').catch((e: unknown) => e);
      expect(unconfigured).toMatchObject({ reason: 'rabbitmq_not_configured', field: 'messaging.rabbitmq' });
    } finally {
      await pool.closeAll();
    }
  });
});
