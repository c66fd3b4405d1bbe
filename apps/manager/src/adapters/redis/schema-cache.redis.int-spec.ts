import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { createTenantContext } from '@fetcher/engine';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import type { ManagerConfig } from '../../config/manager.config';
import { scopeFor, withSchemaScopes } from '../../engine/schema-scope';
import { SYSTEM_CLOCK } from '../../ports/clock.port';
import { aPostgresConnection, ManagerHarness } from '../../testing/manager-harness';
import { schemaCacheContract } from '../../testing/schema-cache.contract';
import { createPostgresSchema } from '../../testing/sql-fixtures';
import { FaultProxy } from '@fetcher/platform/testing';
import { createRedisClient } from './redis.module';
import { RedisSchemaCache } from './schema-cache.redis';

const BASE = '/v1/management/connections';

describe('the validate-schema cache in Redis', () => {
  const prefix = `it:${randomUUID()}:`;
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;
  let inspect: Redis;
  let pg: Awaited<ReturnType<typeof createPostgresSchema>>;

  beforeAll(async () => {
    mongo = await withMongo();
    pg = await createPostgresSchema();
    inspect = new Redis({ host: '127.0.0.1', port: 6379 });
    sut = await ManagerHarness.start(mongo.uri, { REDIS_HOST: '127.0.0.1', SCHEMA_CACHE_TTL_SECONDS: '60' }, prefix);
  });
  afterAll(async () => {
    await sut?.close();
    await mongo?.close();
    const keys = await inspect.keys(`${prefix}*`);
    if (keys.length > 0) await inspect.del(...keys);
    await inspect.quit();
    await pg?.drop();
  });

  const validate = (name: string, table: string) => sut.request('POST', `${BASE}/validate-schema`, { body: { mappedFields: { [name]: { [table]: ['id'] } } } });
  const dropTable = async (table: string) => {
    const client = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    await client.connect();
    try {
      await client.query(`DROP TABLE ${pg.schema}.${table}`);
    } finally {
      await client.end();
    }
  };

  it('keeps one hash per config name, one field per scope, with the TTL; GET /schema never touches it', async () => {
    const conn = await sut.create(aPostgresConnection());
    const name = conn.configName as string;
    await sut.request('GET', `${BASE}/${conn.id as string}/schema`);
    expect(await inspect.exists(`${prefix}fetcher:schema:${name}`)).toBe(0);

    expect((await validate(name, `${pg.schema}.accounts`)).status).toBe(200);
    expect((await validate(name, 'pg_nothing')).status).toBe(422);
    const key = `${prefix}fetcher:schema:${name}`;
    expect((await inspect.hkeys(key)).sort()).toEqual(['-', pg.schema]);
    const entry = JSON.parse((await inspect.hget(key, pg.schema)) as string) as Record<string, unknown>;
    expect(entry).toMatchObject({ configName: name, scope: pg.schema, tables: { [`${pg.schema}.accounts`]: { tableName: `${pg.schema}.accounts`, columns: { id: true, email: true } } } });
    expect(Date.parse(entry.expiresAt as string) - Date.parse(entry.cachedAt as string)).toBe(60_000);
    const ttl = await inspect.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('answers from the cache until a PATCH or a DELETE drops the entries of the name', async () => {
    const conn = await sut.create(aPostgresConnection());
    const name = conn.configName as string;
    expect((await validate(name, `${pg.schema}.orders`)).status).toBe(200);
    await dropTable('orders');
    // Still cached: the table is gone, but validation answers from the cached schema.
    expect((await validate(name, `${pg.schema}.orders`)).status).toBe(200);

    const renamed = `${name}-b`;
    expect((await sut.request('PATCH', `${BASE}/${conn.id as string}`, { body: { configName: renamed } })).status).toBe(200);
    expect(await inspect.exists(`${prefix}fetcher:schema:${name}`)).toBe(0);
    const now = await validate(renamed, `${pg.schema}.orders`);
    expect(now.json()).toMatchObject({ code: 'FET-1060', errors: [{ type: 'TABLE_NOT_FOUND', table: `${pg.schema}.orders` }] });

    expect((await validate(renamed, `${pg.schema}.accounts`)).status).toBe(200);
    expect(await inspect.exists(`${prefix}fetcher:schema:${renamed}`)).toBe(1);
    expect((await sut.request('DELETE', `${BASE}/${conn.id as string}`)).status).toBe(204);
    expect(await inspect.exists(`${prefix}fetcher:schema:${renamed}`)).toBe(0);
  });
});

describe('RedisSchemaCache against a real Redis', () => {
  const prefix = `it:${randomUUID()}:`;
  let client: Redis;
  beforeAll(async () => {
    client = createRedisClient({ host: '127.0.0.1', port: 6379, db: 0, tls: false });
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  });
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  });

  describe('the schema cache contract', () => {
    schemaCacheContract(({ clock, ttlSeconds }) => {
      const sut = new RedisSchemaCache(client, prefix, { schemaCache: { ttlSeconds } } as ManagerConfig, clock);
      expect(sut.backend).toBe('redis');
      return sut;
    });
  });
});

describe('RedisSchemaCache backends', () => {
  const tenant = createTenantContext('default');
  const config = { schemaCache: { ttlSeconds: 60 } } as ManagerConfig;
  const snapshot = (configName: string) => ({ configName, tables: [{ name: 'accounts', fields: ['id'] }] });
  const scoped = <T>(name: string, work: () => Promise<T>) => withSchemaScopes(new Map([[name, scopeFor('POSTGRESQL', [undefined])]]), work);

  it('moves to memory when Redis goes away and back to Redis (memory cleared) when the probe succeeds', async () => {
    const prefix = `it:${randomUUID()}:`;
    const proxy = new FaultProxy(6379);
    await proxy.start();
    const client = createRedisClient({ host: '127.0.0.1', port: proxy.port, db: 0, tls: false });
    const sut = new RedisSchemaCache(client, prefix, config, SYSTEM_CLOCK);
    try {
      if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
      await sut.probe();
      expect(sut.backend).toBe('redis');

      proxy.cut();
      await sut.probe();
      expect(sut.backend).toBe('memory');
      await scoped('a', () => sut.putSchema(tenant, snapshot('a')));
      expect(await scoped('a', () => sut.getSchema(tenant, 'a'))).toMatchObject({ tables: [{ name: 'accounts', fields: ['id'] }] });

      proxy.restore();
      const deadline = Date.now() + 10_000;
      const backend = (): string => sut.backend;
      for (;;) {
        await sut.probe();
        if (backend() === 'redis') break;
        if (Date.now() > deadline) throw new Error('the probe did not switch back');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The memory copy is gone with the switch, and Redis never had it.
      expect(await scoped('a', () => sut.getSchema(tenant, 'a'))).toBeUndefined();
      await scoped('a', () => sut.putSchema(tenant, snapshot('a')));
      expect(await scoped('a', () => sut.getSchema(tenant, 'a'))).toBeDefined();
      await sut.invalidate(tenant, ['a']);
      expect(await scoped('a', () => sut.getSchema(tenant, 'a'))).toBeUndefined();
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });

  it('runs on memory alone when Redis is not configured, and bypasses the cache outside validate-schema', async () => {
    const sut = new RedisSchemaCache(null, '', config, SYSTEM_CLOCK);
    expect(sut.backend).toBe('memory');
    await sut.putSchema(tenant, snapshot('b'));
    expect(await scoped('b', () => sut.getSchema(tenant, 'b'))).toBeUndefined();
    await scoped('b', () => sut.putSchema(tenant, snapshot('b')));
    expect(await scoped('b', () => sut.getSchema(tenant, 'b'))).toBeDefined();
    expect(await sut.getSchema(tenant, 'b')).toBeUndefined();
  });
});
