import { nextRetryHeaders, retryCountOf, retryDelayMs } from './redelivery';

describe('redelivery', () => {
  it('reads x-retry-count as a count: absent is 0, a number or decimal string counts, anything else is no count', () => {
    expect(retryCountOf({})).toBe(0);
    expect(retryCountOf({ 'x-retry-count': 0 })).toBe(0);
    expect(retryCountOf({ 'X-Retry-Count': '3' })).toBe(3);
    for (const bad of [-1, 1.5, 'x', '', null, Number.MAX_VALUE, Buffer.from('1')]) expect(retryCountOf({ 'x-retry-count': bad })).toBeUndefined();
  });

  it('doubles the wait with each retry, up to the maximum', () => {
    const policy = { baseDelayMs: 2_000, maxDelayMs: 30_000 };
    expect([0, 1, 2, 3, 4, 60].map((n) => retryDelayMs(n, policy))).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });

  it('keeps every header, the signed ones included, and raises only the retry count', () => {
    const headers = { 'x-message-signature': 'ab', t: '1', 'X-Retry-Count': 1, jobId: 'j' };
    expect(nextRetryHeaders(headers)).toEqual({ 'x-message-signature': 'ab', t: '1', jobId: 'j', 'x-retry-count': 2 });
  });
});
