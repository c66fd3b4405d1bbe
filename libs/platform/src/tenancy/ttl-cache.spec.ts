import { TtlCache } from './ttl-cache';

describe(TtlCache.name, () => {
  const setup = () => {
    let now = 1_000;
    return { cache: new TtlCache<string>(100, () => now), advance: (ms: number) => void (now += ms) };
  };

  it('returns an entry until its TTL has passed, then forgets it', () => {
    const { cache, advance } = setup();
    cache.set('a', 'one');
    advance(99);
    expect(cache.get('a')).toBe('one');
    advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('restarts the TTL when an entry is set again', () => {
    const { cache, advance } = setup();
    cache.set('a', 'one');
    advance(80);
    cache.set('a', 'two');
    advance(80);
    expect(cache.get('a')).toBe('two');
  });

  it('sweeps expired entries nobody reads on a later write', () => {
    const { cache, advance } = setup();
    cache.set('a', 'one');
    cache.set('b', 'two');
    advance(150);
    cache.set('c', 'three');
    expect(cache.size).toBe(1);
  });

  it('deletes and clears', () => {
    const { cache } = setup();
    cache.set('a', 'one');
    cache.set('b', 'two');
    expect(cache.delete('a')).toBe(true);
    expect(cache.get('a')).toBeUndefined();
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });
});
