import { acceptsLag, isValidLag, windowStart } from './lag-window';

describe(windowStart.name, () => {
  it('subtracts exactly in the cursor unit: integers beyond 2^53, decimals digit for digit, floats as numbers', () => {
    expect(windowStart('integer', 9007199254740993n, 2)).toBe(9007199254740991n);
    expect(windowStart('integer', 5n, '10')).toBe(-5n);
    expect(windowStart('integer', -(2n ** 63n) + 1n, 5)).toBe(-(2n ** 63n));
    expect(windowStart('decimal', '10.10', '0.000000000000000000001')).toBe('10.099999999999999999999');
    expect(windowStart('decimal', '1e3', 0.5)).toBe('999.5');
    expect(windowStart('decimal', '0.25', '1')).toBe('-0.75');
    expect(windowStart('float', 2.5, 0.5)).toBe(2);
  });

  it('moves dates by whole days and date-times by seconds to the nanosecond, never before year 1', () => {
    expect(windowStart('date', '2024-03-01', 1)).toBe('2024-02-29');
    expect(windowStart('date', '0001-01-02', 30)).toBe('0001-01-01');
    expect(windowStart('datetime', '2026-01-01T00:00:00Z', 0.000000001)).toBe('2025-12-31T23:59:59.999999999Z');
    expect(windowStart('datetime', '2026-01-01T00:00:00.5Z', 90)).toBe('2025-12-31T23:58:30.5Z');
    expect(windowStart('datetime', '2026-06-30T12:00:00.123456Z', '0.000456')).toBe('2026-06-30T12:00:00.123Z');
    expect(windowStart('datetime', '1969-12-31T23:59:59.25Z', 0.5)).toBe('1969-12-31T23:59:58.75Z');
    expect(windowStart('datetime', '0001-01-01T00:00:10Z', 3600)).toBe('0001-01-01T00:00:00Z');
    expect(windowStart('datetime', '2026-01-01T00:00:00Z', 0)).toBe('2026-01-01T00:00:00Z');
  });
});

describe(isValidLag.name, () => {
  it('takes a non-negative finite number or numeric text, whole for integer and date cursors', () => {
    expect([isValidLag('integer', 3), isValidLag('integer', '3'), isValidLag('integer', 1.5), isValidLag('integer', -1)]).toEqual([true, true, false, false]);
    expect([isValidLag('datetime', 0.25), isValidLag('datetime', '1e2'), isValidLag('datetime', 'PT5M'), isValidLag('datetime', Infinity)]).toEqual([true, true, false, false]);
    expect([isValidLag('date', 2), isValidLag('date', 0.5), isValidLag('date', 1e9)]).toEqual([true, false, false]);
    expect([isValidLag('decimal', '-0.1'), isValidLag('float', null), isValidLag('float', true)]).toEqual([false, false, false]);
  });

  it('refuses lag on cursors without a distance', () => {
    expect(['string', 'uuid', 'objectId'].map((kind) => acceptsLag(kind as 'string'))).toEqual([false, false, false]);
    expect(isValidLag('string', 1)).toBe(false);
  });
});
