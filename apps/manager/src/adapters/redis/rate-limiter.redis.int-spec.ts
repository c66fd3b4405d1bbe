import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { Redis } from 'ioredis';
import { SYSTEM_CLOCK } from '../../ports/clock.port';
import { ManagerHarness } from '../../testing/manager-harness';
import { rateLimiterContract } from '../../testing/rate-limiter.contract';
import { FaultProxy } from '@fetcher/platform/testing';
import { RedisRateLimiter } from './rate-limiter.redis';
import { createRedisClient } from './redis.module';

describe('RedisRateLimiter against a real Redis', () => {
  const prefix = `it:${randomUUID()}:`;
  let redis: Redis;
  let inspect: Redis;
  beforeAll(async () => {
    redis = createRedisClient({ host: '127.0.0.1', port: 6379, db: 0, tls: false });
    inspect = new Redis({ host: '127.0.0.1', port: 6379 });
    await ready(redis);
  });
  afterAll(async () => {
    const keys = await inspect.keys(`${prefix}*`);
    if (keys.length > 0) await inspect.del(...keys);
    await Promise.all([redis.quit(), inspect.quit()]);
  });

  describe('the rate limiter contract', () => {
    rateLimiterContract(() => new RedisRateLimiter(redis, prefix, SYSTEM_CLOCK));
  });

  it('allows a burst of ten, refuses the eleventh with a retry delay, and keeps the key 120 s', async () => {
    const sut = new RedisRateLimiter(redis, prefix, SYSTEM_CLOCK);
    const id = randomUUID();
    for (let i = 0; i < 10; i++) expect(await sut.take(id)).toEqual({ allowed: true });
    const denied = await sut.take(id);
    expect(denied).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
    if (!denied.allowed) expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    if (!denied.allowed) expect(denied.retryAfterSeconds).toBeLessThanOrEqual(6);
    const key = `${prefix}fetcher:ratelimit:test:${id}`;
    const ttl = await inspect.pttl(key);
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it('falls back to a per-process bucket while Redis is unreachable and goes back once it answers', async () => {
    const proxy = new FaultProxy(6379);
    await proxy.start();
    const client = createRedisClient({ host: '127.0.0.1', port: proxy.port, db: 0, tls: false });
    try {
      const sut = new RedisRateLimiter(client, prefix, SYSTEM_CLOCK);
      await ready(client);
      const shared = randomUUID();
      expect(await sut.take(shared)).toEqual({ allowed: true });
      proxy.cut();
      const local = randomUUID();
      for (let i = 0; i < 10; i++) expect(await sut.take(local)).toEqual({ allowed: true });
      expect(await sut.take(local)).toMatchObject({ allowed: false });
      expect(await inspect.exists(`${prefix}fetcher:ratelimit:test:${local}`)).toBe(0);
      proxy.restore();
      // Back on Redis: the shared bucket remembers the token taken before the outage.
      await pollTake(sut, shared);
      expect(Number(await inspect.hget(`${prefix}fetcher:ratelimit:test:${shared}`, 'tokens'))).toBeLessThan(9);
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });
});

/** The client fails fast while connecting (no offline queue), so tests wait for it to be ready. */
async function ready(client: Redis): Promise<void> {
  if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
}

/** Takes tokens until the shared bucket in Redis shows the second one (bounded). */
async function pollTake(sut: RedisRateLimiter, id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  const inspect = new Redis({ host: '127.0.0.1', port: 6379 });
  try {
    for (;;) {
      await sut.take(id);
      const keys = await inspect.keys(`*fetcher:ratelimit:test:${id}`);
      if (keys.length > 0 && Number(await inspect.hget(keys[0], 'tokens')) < 9) return;
      if (Date.now() > deadline) throw new Error('the limiter did not go back to Redis');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await inspect.quit();
  }
}

describe('the test-connection limit across Manager replicas', () => {
  let mongo: MongoTestTarget;
  const started: ManagerHarness[] = [];
  beforeAll(async () => {
    mongo = await withMongo();
  });
  afterAll(async () => {
    await Promise.all(started.map((m) => m.close()));
    await mongo?.close();
  });

  async function pair(env: Record<string, string>, prefix: string): Promise<[ManagerHarness, ManagerHarness]> {
    const a = await ManagerHarness.start(mongo.uri, env, prefix);
    const b = await ManagerHarness.start(mongo.uri, { ...a.env, ...env }, prefix);
    started.push(a, b);
    return [a, b];
  }

  it('two Managers sharing one Redis allow ten tests between them, not twenty, and answer 429 (E3) with Retry-After', async () => {
    const [a, b] = await pair({ REDIS_HOST: '127.0.0.1' }, `it:${randomUUID()}:`);
    // The limiter runs before the existence check: unknown ids use tokens too.
    const url = `/v1/management/connections/${randomUUID()}/test`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await a.request('POST', url)).status, (await b.request('POST', url)).status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const denied = await b.request('POST', url);
    expect(denied.status).toBe(429);
    expect(denied.json()).toEqual({ code: 429, title: 'Rate Limit Exceeded', message: expect.stringMatching(/^Connection test limit reached\. Try again in [1-6] seconds\.$/) });
    expect(denied.headers['retry-after']).toBe(String(denied.json<{ message: string }>().message.match(/in (\d) seconds/)?.[1]));
  });

  it('without a reachable Redis each Manager limits on its own (ten each)', async () => {
    const [a, b] = await pair({ REDIS_HOST: '127.0.0.1', REDIS_PORT: '1' }, `it:${randomUUID()}:`);
    const url = `/v1/management/connections/${randomUUID()}/test`;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await a.request('POST', url)).status, (await b.request('POST', url)).status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
  });

  it('with Redis unconfigured, limits in memory', async () => {
    const m = await ManagerHarness.start(mongo.uri);
    started.push(m);
    const url = `/v1/management/connections/${randomUUID()}/test`;
    for (let i = 0; i < 10; i++) expect((await m.request('POST', url)).status).toBe(404);
    expect((await m.request('POST', url)).status).toBe(429);
  });
});
