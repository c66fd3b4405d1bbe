import type { ColumnKind } from '@fetcher/engine';
import { bindFilterValue, nextDayStart, parseInstant } from './filter-values';

const bind = (kind: ColumnKind, value: unknown) => bindFilterValue(kind, value, 'c.t.f').value;

describe('bindFilterValue', () => {
  it.each([
    ['integer', 5, 5n],
    ['integer', '-12', -12n],
    ['integer', '+7', 7n],
    ['integer', '9223372036854775807', 9223372036854775807n],
    ['integer', 123n, 123n],
    ['decimal', '2500.00', '2500.00'],
    ['decimal', 0.1, '0.1'],
    ['decimal', '-1.5e3', '-1.5e3'],
    ['decimal', '.5', '.5'],
    ['float', 1.25, 1.25],
    ['float', '2.5', 2.5],
    ['boolean', false, false],
    ['boolean', 'false', false],
    ['boolean', true, true],
    ['uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['objectId', '507F1F77BCF86CD799439011', '507f1f77bcf86cd799439011'],
    ['date', '2024-02-29', '2024-02-29'],
    ['date', '2024-02-29T10:00:00Z', '2024-02-29'],
    ['datetime', '2024-02-29', '2024-02-29T00:00:00Z'],
    ['datetime', '2024-02-29T10:11:12Z', '2024-02-29T10:11:12Z'],
    ['datetime', '2024-02-29T10:11:12.123456Z', '2024-02-29T10:11:12.123456Z'],
    ['datetime', '2024-02-29T10:11:12.500000', '2024-02-29T10:11:12.5Z'],
    ['datetime', '2024-02-29T01:00:00+02:30', '2024-02-28T22:30:00Z'],
    ['datetime', '2024-02-29 23:00:00-0100', '2024-03-01T00:00:00Z'],
    ['datetime', '2024-02-29T10:11', '2024-02-29T10:11:00Z'],
    ['string', 'abc', 'abc'],
    ['string', 42, '42'],
    ['string', true, 'true'],
    ['json', 1.5, '1.5'],
    ['time', '10:00:00', '10:00:00'],
    ['other', 99n, '99'],
  ] as const)('%s accepts %p as %p', (kind, input, expected) => {
    expect(bind(kind, input)).toEqual(expected);
  });

  it('binds base64 as bytes', () => {
    expect(bind('binary', 'AP8=')).toEqual(new Uint8Array([0, 255]));
    expect(bind('binary', '')).toEqual(new Uint8Array([]));
  });

  it.each([
    ['integer', 1.5],
    ['integer', '1.0'],
    ['integer', '12a'],
    ['integer', true],
    ['decimal', 'abc'],
    ['decimal', Number.NaN],
    ['decimal', '1,5'],
    ['float', '1e999'],
    ['float', Number.POSITIVE_INFINITY],
    ['boolean', 'TRUE'],
    ['boolean', 1],
    ['uuid', 'width'],
    ['uuid', '3f2504e0-4f89-11d3-9a0c-0305e82c330'],
    ['objectId', '507f1f77bcf86cd79943901g'],
    ['date', '2023-02-29'],
    ['date', '2024-13-01'],
    ['date', '24-01-01'],
    ['datetime', '2024-01-01T24:00:00Z'],
    ['datetime', '2024-01-01T10:00:00+25:00'],
    ['datetime', 'yesterday'],
    ['datetime', 1704067200000],
    ['binary', 'not base64!'],
    ['binary', 'AAE'],
    ['string', { a: 1 }],
    ['string', [1]],
    ['other', Number.NaN],
  ] as const)('%s refuses %p', (kind, input) => {
    expect(() => bindFilterValue(kind, input, 'crm.users.f')).toThrow(expect.objectContaining({ category: 'validation', message: 'filter value does not match the column type: crm.users.f' }));
  });
});

describe('parseInstant and nextDayStart', () => {
  it('flags date-only input', () => {
    expect(parseInstant('2024-01-01')?.dateOnly).toBe(true);
    expect(parseInstant('2024-01-01T00:00:00Z')?.dateOnly).toBe(false);
  });

  it('handles years below 100 without the Date.UTC century shift', () => {
    expect(parseInstant('0099-12-31T23:00:00-02:00')?.dateTime).toBe('0100-01-01T01:00:00Z');
    expect(nextDayStart('0050-02-28')).toBe('0050-03-01T00:00:00Z');
  });

  it('has no next day for a date-time or past year 9999', () => {
    expect(nextDayStart('2024-01-01T00:00:00Z')).toBeUndefined();
    expect(nextDayStart('9999-12-31')).toBeUndefined();
  });
});
