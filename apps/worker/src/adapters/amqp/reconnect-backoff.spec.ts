import { reconnectDelaySec } from './reconnect-backoff';

describe(reconnectDelaySec.name, () => {
  it('grows exponentially from 1 s, capped at 60 s, with full jitter', () => {
    expect([1, 2, 3, 4, 7, 8, 20].map((n) => reconnectDelaySec(n, new Error('ECONNREFUSED'), () => 0.999999))).toEqual(
      [1, 2, 4, 8, 64, 128, 2 ** 19].map((c) => Math.min(60, c) * 0.999999),
    );
    expect(reconnectDelaySec(5, undefined, () => 0.5)).toBe(8);
    expect(reconnectDelaySec(5, undefined, () => 0)).toBe(0.1);
  });

  it.each([403, 404, 405, 406])('waits 30 s after a permanent %d', (code) => {
    expect(reconnectDelaySec(1, Object.assign(new Error('refused'), { code }), () => 0.5)).toBe(30);
  });
});
