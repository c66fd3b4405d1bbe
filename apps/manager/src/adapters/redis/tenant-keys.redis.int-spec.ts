import { randomUUID } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
import { Redis } from 'ioredis';
import type { ManagerConfig, ManagerTenancy } from '../../config/manager.config';
import { scopeFor, withSchemaScopes } from '../../engine/schema-scope';
import { SYSTEM_CLOCK } from '../../ports/clock.port';
import { rateLimiterContract } from '../../testing/rate-limiter.contract';
import { schemaCacheContract } from '../../testing/schema-cache.contract';
import { RedisRateLimiter } from './rate-limiter.redis';
import { createRedisClient } from './redis.module';
import { RedisSchemaCache } from './schema-cache.redis';

/** Only `multiTenant` matters to the key scheme. */
const MULTI_TENANT = { multiTenant: true } as unknown as ManagerTenancy;

/** Multi-tenant mode: the rate limiter's and schema cache's keys live under `tenant:{id}:`, one tenant never reaching another's. */
describe('tenant-scoped Redis keys against a real Redis', () => {
  const prefix = `it:${randomUUID()}:`;
  const acme = createTenantContext('acme');
  const globex = createTenantContext('globex');
  let redis: Redis;
  let inspect: Redis;
  beforeAll(async () => {
    redis = createRedisClient({ host: '127.0.0.1', port: 6379, db: 0, tls: false });
    inspect = new Redis({ host: '127.0.0.1', port: 6379 });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    const keys = await inspect.keys(`${prefix}*`);
    if (keys.length > 0) await inspect.del(...keys);
    await Promise.all([redis.quit(), inspect.quit()]);
  });

  describe('the rate limiter contract, multi-tenant', () => {
    const limiter = () => new RedisRateLimiter(redis, prefix, SYSTEM_CLOCK, { tenancy: MULTI_TENANT });
    rateLimiterContract(() => ({ take: (key: string) => limiter().take(key, acme) }));
  });

  describe('the schema cache contract, multi-tenant', () => {
    schemaCacheContract(({ clock, ttlSeconds }) => new RedisSchemaCache(redis, prefix, { schemaCache: { ttlSeconds }, tenancy: MULTI_TENANT } as ManagerConfig, clock));
  });

  it('keeps a bucket per tenant under tenant:{id}:, and refuses a key without a tenant', async () => {
    const sut = new RedisRateLimiter(redis, prefix, SYSTEM_CLOCK, { tenancy: MULTI_TENANT });
    const id = randomUUID();
    for (let i = 0; i < 10; i++) expect(await sut.take(id, acme)).toEqual({ allowed: true });
    expect(await sut.take(id, acme)).toMatchObject({ allowed: false });
    expect(await sut.take(id, globex)).toEqual({ allowed: true });
    expect(await inspect.exists(`${prefix}tenant:acme:fetcher:ratelimit:test:${id}`)).toBe(1);
    expect(await inspect.exists(`${prefix}tenant:globex:fetcher:ratelimit:test:${id}`)).toBe(1);
    expect(await inspect.exists(`${prefix}fetcher:ratelimit:test:${id}`)).toBe(0);
    await expect(sut.take(id)).rejects.toThrow(/without a verified tenant/);
  });

  it('caches a schema per tenant under tenant:{id}:, invisible to another tenant and dropped only for its own', async () => {
    const sut = new RedisSchemaCache(redis, prefix, { schemaCache: { ttlSeconds: 60 }, tenancy: MULTI_TENANT } as ManagerConfig, SYSTEM_CLOCK);
    const name = `pg-${randomUUID().slice(0, 8)}`;
    const within = <T>(work: () => Promise<T>) => withSchemaScopes(new Map([[name, scopeFor('POSTGRESQL', [undefined])]]), work);
    await within(() => sut.putSchema(acme, { configName: name, tables: [{ name: 'accounts', fields: ['id'] }] }));
    expect(await inspect.exists(`${prefix}tenant:acme:fetcher:schema:${name}`)).toBe(1);
    expect(await inspect.exists(`${prefix}fetcher:schema:${name}`)).toBe(0);
    expect(await within(() => sut.getSchema(globex, name))).toBeUndefined();
    await sut.invalidate(globex, [name]);
    expect((await within(() => sut.getSchema(acme, name)))?.tables).toEqual([{ name: 'accounts', fields: ['id'] }]);
    await sut.invalidate(acme, [name]);
    expect(await inspect.exists(`${prefix}tenant:acme:fetcher:schema:${name}`)).toBe(0);
  });
});
