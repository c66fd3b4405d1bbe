import { requestIdFrom } from './request-id';

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
