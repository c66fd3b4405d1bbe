export type RateLimitDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * A token bucket per key shared by every replica: capacity 10, one token every 6 s. MUST NOT
 * reject: when its store is unreachable it decides from a per-process bucket with the same numbers.
 */
export interface RateLimiter {
  take(key: string): Promise<RateLimitDecision>;
}
export const RATE_LIMITER = Symbol('RateLimiter');
