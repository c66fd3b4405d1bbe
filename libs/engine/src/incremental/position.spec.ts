import { compareBound, compareDecimal, comparePositions, normaliseBound, positionBounds, toPosition } from './position';

describe(compareDecimal.name, () => {
  it('orders numeric texts exactly, whatever their spelling', () => {
    const ascending = ['-1e3', '-2.5', '-0.000001', '0', '.000001', '1e-5', '0.5', '1', '1.0000000000000000001', '2.50', '10', '1e10', '12345678901234567890123'];
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) {
        expect([ascending[i], ascending[j], Math.sign(compareDecimal(ascending[i], ascending[j]))]).toEqual([ascending[i], ascending[j], Math.sign(i - j)]);
      }
    }
    expect(compareDecimal('2.50', '2.5')).toBe(0);
    expect(compareDecimal('-0', '0.00')).toBe(0);
  });
});

describe(compareBound.name, () => {
  it('compares date-times by instant, fractions of any length included', () => {
    const a = normaliseBound('datetime', '2026-01-01T10:00:00+02:00')!;
    const b = normaliseBound('datetime', '2026-01-01T08:00:00.000001Z')!;
    const c = normaliseBound('datetime', '2026-01-01T08:00:00.1Z')!;
    expect([compareBound('datetime', a, b), compareBound('datetime', b, c), compareBound('datetime', a, normaliseBound('datetime', '2026-01-01T08:00:00.000Z')!)]).toEqual([-1, -1, 0]);
  });

  it('compares text by code point, integers as bigints beyond 2^53, uuids by their bytes', () => {
    expect(compareBound('string', 'Z', 'a')).toBeLessThan(0);
    expect(compareBound('string', '\uffff', '😀')).toBeLessThan(0);
    expect(compareBound('integer', normaliseBound('integer', '9007199254740993')!, normaliseBound('integer', 9007199254740991)!)).toBe(1);
    expect(compareBound('uuid', normaliseBound('uuid', 'A0000000-0000-0000-0000-000000000000')!, '9fffffff-ffff-ffff-ffff-ffffffffffff')).toBe(1);
  });
});

describe(positionBounds.name, () => {
  const query = { cursorKind: 'integer', tieBreakerKind: 'string' } as const;

  it('reads a reported position back to the same bounds (the chain round-trips)', () => {
    const bounds = positionBounds(query, { value: '18446744073709551615', key: 'k' })!;
    expect(bounds).toEqual({ value: 18446744073709551615n, key: 'k' });
    expect(toPosition(bounds)).toEqual({ value: '18446744073709551615', key: 'k' });
    expect(comparePositions(query, bounds, positionBounds(query, toPosition(bounds))!)).toBe(0);
  });

  it('refuses values of the wrong kind, a number as text key, and a null cursor unless nulls come first', () => {
    expect(positionBounds(query, { value: 'x', key: 'k' })).toBeUndefined();
    expect(positionBounds(query, { value: 1, key: 5 })).toBeUndefined();
    expect(positionBounds(query, { value: null, key: 'k' })).toBeUndefined();
    expect(positionBounds({ ...query, nulls: 'first' }, { value: null, key: 'k' })).toEqual({ value: null, key: 'k' });
    expect(positionBounds(query, [1, 'k'])).toBeUndefined();
  });

  it('puts a null cursor before every value', () => {
    expect(comparePositions(query, { value: null, key: 'z' }, { value: -5n, key: 'a' })).toBe(-1);
  });
});
