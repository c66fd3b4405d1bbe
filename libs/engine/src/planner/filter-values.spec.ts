import { JsonNumber, type ColumnKind } from '../models';
import { acceptsValue, normaliseFilterValue, parseInstant } from './filter-values';

describe(acceptsValue.name, () => {
  const cases: [ColumnKind, unknown[], unknown[]][] = [
    ['integer', [1, -7, 0, 9007199254740991, 9007199254740993n, '123', '-42', '+5', '-9223372036854775808', new JsonNumber('18446744073709551615')],
      [1.5, '1.0', 'abc', '', true, null, {}, new JsonNumber('1.5'),
        // beyond any integer column, or no exact integer: the database refused them and the run reported "failed to query datasource"
        1e308, 2 ** 53, -(2 ** 60), '18446744073709551616', '-9223372036854775809', '123456789012345678901234567890', new JsonNumber('1e308')]],
    ['decimal', [1, 1.25, '2500.00', '-0.5', '.5', '1e10', 3n, new JsonNumber('1.50')], ['1,5', 'NaN', Infinity, NaN, true, [], 'ten']],
    ['float', [0.1, '3.14', '-2E-3'], ['pi', {}]],
    ['boolean', [true, false, 'true', 'false'], ['TRUE', 1, 0, 'yes', null]],
    ['uuid', ['0f8fad5b-d9cb-469f-a165-70867728950e', '0F8FAD5B-D9CB-469F-A165-70867728950E'], ['0f8fad5b', 'not-a-uuid-at-all-0000000000000000', 42]],
    ['date', ['2026-01-31', '2026-01-31T10:00:00Z', '2024-02-29'], ['2026-02-30', '2023-02-29', '31/01/2026', '2026-13-01', 20260131]],
    ['datetime', ['2026-01-31T10:20:30.123456Z', '2026-01-31T10:20:30+02:00', '2026-01-31T10:20', '2026-01-31 10:20:30', '2026-01-31'], ['2026-01-31T24:00:00Z', '2026-01-31T10:60Z', '2026-01-31T10:00:00+25:00', 'yesterday']],
    ['string', ['text', 42, true, 10n], [{}, [], null, NaN, undefined]],
    ['json', ['{}', 1], [{ a: 1 }]],
    ['time', ['10:20:30'], [[]]],
    ['other', ['x', 1.5], [{}]],
    ['binary', ['', 'AQID', 'AQIDBA==', 'AQIDBAU='], ['AQI', 'A===', '@@@@', 5]],
    ['objectId', ['507f1f77bcf86cd799439011', '507F1F77BCF86CD799439011'], ['507f1f77bcf86cd79943901', 'zzzf1f77bcf86cd799439011']],
  ];

  it.each(cases)('%s accepts its values and refuses the others', (kind, accepted, refused) => {
    expect(accepted.filter((v) => !acceptsValue(kind, v))).toEqual([]);
    expect(refused.filter((v) => acceptsValue(kind, v))).toEqual([]);
  });
});

describe(parseInstant.name, () => {
  it('checks calendar days, including leap years', () => {
    expect(['2000-02-29', '2024-02-29', '1999-12-31'].map((t) => parseInstant(t) !== undefined)).toEqual([true, true, true]);
    expect(['1900-02-29', '2026-04-31', '2026-00-10'].map((t) => parseInstant(t) !== undefined)).toEqual([false, false, false]);
  });
});

describe(normaliseFilterValue.name, () => {
  it('refuses instants outside years 1-9999, also when only the offset moves them out', () => {
    for (const text of ['0000-01-01', '0000-12-31T23:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00']) {
      expect([text, normaliseFilterValue('datetime', text)]).toEqual([text, undefined]);
      expect([text, normaliseFilterValue('date', text)]).toEqual([text, undefined]);
    }
    expect(normaliseFilterValue('datetime', '0001-01-01T01:30:00+01:00')).toBe('0001-01-01T00:30:00Z');
    expect(normaliseFilterValue('date', '2024-01-01T23:30:00-01:00')).toBe('2024-01-02');
  });

  it('reads JsonNumber literals as the numbers they spell, for every kind that takes numbers', () => {
    expect(normaliseFilterValue('integer', new JsonNumber('-9223372036854775808'))).toBe(-9223372036854775808n);
    expect(normaliseFilterValue('decimal', new JsonNumber('1.50'))).toBe('1.50');
    expect(normaliseFilterValue('float', new JsonNumber('2.5'))).toBe(2.5);
    expect(normaliseFilterValue('string', new JsonNumber('7'))).toBe('7');
  });

  it('refuses a float literal that no double can hold', () => {
    expect(normaliseFilterValue('float', '1e400')).toBeUndefined();
    expect(normaliseFilterValue('float', new JsonNumber('-1e400'))).toBeUndefined();
    expect(normaliseFilterValue('decimal', '1e400')).toBe('1e400');
  });
});
