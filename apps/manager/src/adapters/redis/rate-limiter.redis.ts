import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import type { Redis } from 'ioredis';
import { CLOCK, type Clock } from '../../ports/clock.port';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.port';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { REDIS_CLIENT, REDIS_KEY_PREFIX } from './redis.module';
import { BUCKET, retryAfterSeconds } from './token-bucket';
import { tenantKeyPrefix } from './tenant-keys';

/**
 * One atomic step of the shared bucket: refill from Redis' own clock (replicas' clocks may
 * disagree), take a token or compute the wait, and keep the key alive for 120 s of idleness.
 * Returns {allowed (1/0), wait in ms}.
 */
const TAKE_TOKEN = `
local capacity = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
if now > ts then
  tokens = math.min(capacity, tokens + (now - ts) / interval)
  ts = now
end
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * interval)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return {allowed, wait}
`;

/** The shared bucket in Redis, with the per-process bucket while Redis is unreachable or unconfigured. */
@Injectable()
export class RedisRateLimiter implements RateLimiter {
  private readonly logger = new Logger(RedisRateLimiter.name);
  private readonly fallback: MemoryRateLimiter;
  private usingFallback = false;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis | null,
    @Inject(REDIS_KEY_PREFIX) private readonly prefix: string,
    @Inject(CLOCK) clock: Clock,
    @Optional() @Inject(MANAGER_CONFIG) private readonly config?: Pick<ManagerConfig, 'tenancy'>,
  ) {
    this.fallback = new MemoryRateLimiter(clock);
  }

  /** In multi-tenant mode the bucket is the tenant's: `tenant:{id}:fetcher:ratelimit:test:{key}`. */
  async take(key: string, tenant?: TenantContext): Promise<RateLimitDecision> {
    const fullKey = `${this.prefix}${tenantKeyPrefix(this.config?.tenancy, tenant)}fetcher:ratelimit:test:${key}`;
    if (this.redis) {
      try {
        const [allowed, wait] = (await this.redis.eval(TAKE_TOKEN, 1, fullKey, BUCKET.capacity, BUCKET.refillIntervalMs, BUCKET.idleTtlMs)) as [number, number];
        this.switchTo(false);
        return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: retryAfterSeconds(wait) };
      } catch {
        this.switchTo(true);
      }
    }
    return this.fallback.take(fullKey);
  }

  private switchTo(fallback: boolean): void {
    if (fallback === this.usingFallback) return;
    this.usingFallback = fallback;
    if (fallback) this.logger.warn('rate limiter: Redis unreachable, using the per-process bucket');
    else this.logger.log('rate limiter: Redis reachable again, using the shared bucket');
  }
}
