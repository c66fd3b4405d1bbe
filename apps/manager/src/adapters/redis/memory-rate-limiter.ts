import type { Clock } from '../../ports/clock.port';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.port';
import { BUCKET, retryAfterSeconds } from './token-bucket';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A per-process token bucket with the shared bucket's numbers, for when Redis is unreachable.
 * Bounded: at most `maxKeys` buckets (least recently used dropped first), and buckets that have
 * refilled completely are dropped, since a fresh bucket is identical.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly maxKeys = 10_000,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  take(key: string): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const previous = this.buckets.get(key);
    const bucket = previous ? refill(previous, now) : { tokens: BUCKET.capacity, at: now };
    this.buckets.delete(key); // re-inserted below: Map order is the LRU order
    let decision: RateLimitDecision;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      decision = { allowed: true };
    } else {
      decision = { allowed: false, retryAfterSeconds: retryAfterSeconds((1 - bucket.tokens) * BUCKET.refillIntervalMs) };
    }
    this.buckets.set(key, bucket);
    this.evict(now);
    return Promise.resolve(decision);
  }

  private evict(now: number): void {
    if (this.buckets.size <= this.maxKeys) return;
    for (const [key, bucket] of this.buckets) {
      if (refill({ ...bucket }, now).tokens >= BUCKET.capacity) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

function refill(bucket: Bucket, now: number): Bucket {
  if (now > bucket.at) {
    bucket.tokens = Math.min(BUCKET.capacity, bucket.tokens + (now - bucket.at) / BUCKET.refillIntervalMs);
    bucket.at = now;
  }
  return bucket;
}
