import { FakeClock } from '../../testing/fake-clock';
import { rateLimiterContract } from '../../testing/rate-limiter.contract';
import { MemoryRateLimiter } from './memory-rate-limiter';

describe(MemoryRateLimiter.name, () => {
  describe('the rate limiter contract', () => {
    rateLimiterContract(() => new MemoryRateLimiter(new FakeClock()));
  });

  it('allows ten, then refuses with the seconds until the next token, and refills one token every 6 s', async () => {
    const clock = new FakeClock();
    const sut = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i++) expect(await sut.take('k')).toEqual({ allowed: true });
    expect(await sut.take('k')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    clock.advance(4_500);
    expect(await sut.take('k')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    clock.advance(1_500);
    expect(await sut.take('k')).toEqual({ allowed: true });
    expect(await sut.take('other')).toEqual({ allowed: true });
  });

  it('stays bounded: full idle buckets go first, then the least recently used', async () => {
    const clock = new FakeClock();
    const sut = new MemoryRateLimiter(clock, 3);
    for (const key of ['a', 'b', 'c']) await sut.take(key);
    clock.advance(60_000); // every bucket has refilled: dropping them changes nothing
    await sut.take('d');
    expect(sut.size).toBe(1);
    for (const key of ['e', 'f', 'g', 'h']) await sut.take(key);
    expect(sut.size).toBe(3);
  });
});
