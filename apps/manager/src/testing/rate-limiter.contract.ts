import { randomUUID } from 'node:crypto';
import type { RateLimiter } from '../ports/rate-limiter.port';

/**
 * What every RateLimiter must do, run against the Redis bucket and the per-process one (the Redis
 * adapter's fallback, and the standalone service's limiter) alike: a burst of ten per key, then a
 * refusal that says when to come back, each key on its own. Refill over time is each adapter's own
 * spec (the Redis one runs on the server's clock). `make` gives a limiter; keys are fresh per test.
 */
export function rateLimiterContract(make: () => RateLimiter | Promise<RateLimiter>): void {
  let sut: RateLimiter;
  beforeEach(async () => {
    sut = await make();
  });

  it('allows a burst of ten, then refuses with a retry delay between 1 and 6 seconds', async () => {
    const key = randomUUID();
    for (let i = 0; i < 10; i++) expect(await sut.take(key)).toEqual({ allowed: true });
    const denied = await sut.take(key);
    expect(denied.allowed).toBe(false);
    if (denied.allowed) return;
    expect(Number.isInteger(denied.retryAfterSeconds)).toBe(true);
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(denied.retryAfterSeconds).toBeLessThanOrEqual(6);
  });

  it('keeps one bucket per key', async () => {
    const spent = randomUUID();
    for (let i = 0; i < 11; i++) await sut.take(spent);
    expect(await sut.take(spent)).toMatchObject({ allowed: false });
    expect(await sut.take(randomUUID())).toEqual({ allowed: true });
  });
}
