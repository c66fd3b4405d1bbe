import { requestIdFrom, requestUuidV7 } from './request-id';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe(requestIdFrom.name, () => {
  it('keeps an acceptable caller id and replaces anything else with a UUIDv7', () => {
    expect(requestIdFrom('req-123')).toBe('req-123');
    expect(requestIdFrom(['a.b:c/d+e=f', 'second'])).toBe('a.b:c/d+e=f');
    for (const header of [undefined, '', 'has spaces', 'x'.repeat(129), 'tab\there']) {
      expect(requestIdFrom(header)).toMatch(UUID_V7);
    }
  });
});

describe(requestUuidV7.name, () => {
  it('puts the Unix milliseconds in the first 48 bits', () => {
    const at = Date.UTC(2026, 11, 1, 12, 0, 0, 123);
    const id = requestUuidV7(at);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(requestUuidV7(0).startsWith('00000000-0000-7')).toBe(true);
  });

  it('gives distinct, well-formed ids across several refills of its random pool', () => {
    const ids = Array.from({ length: 2000 }, () => requestUuidV7(1_800_000_000_000));
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit of the random part shows up: the bytes are used, not left constant.
    expect(new Set(ids.map((id) => id.at(-1))).size).toBe(16);
  });
});
