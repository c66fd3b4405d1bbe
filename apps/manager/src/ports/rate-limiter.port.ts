import type { TenantContext } from '@fetcher/engine';
export type RateLimitDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * A token bucket per key shared by every replica: capacity 10, one token every 6 s. MUST NOT
 * reject: when its store is unreachable it decides from a per-process bucket with the same numbers.
 */
export interface RateLimiter {
  /** `tenant` scopes the bucket in multi-tenant mode (the request's verified tenant). */
  take(key: string, tenant?: TenantContext): Promise<RateLimitDecision>;
}
export const RATE_LIMITER = Symbol('RateLimiter');
