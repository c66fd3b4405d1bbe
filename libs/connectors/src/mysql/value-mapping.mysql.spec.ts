import { JsonNumber } from '@fetcher/engine';
import type { TypeCast } from 'mysql2';
import { bitValue, bytes, exactInteger, mysqlDate, mysqlDateTime, mysqlTypeCast } from './value-mapping.mysql';

type Field = Parameters<Exclude<TypeCast, boolean>>[0];

/** A typeCast field as mysql2 hands it over, reading from fixed raw values. */
function field(type: Field['type'], raw: { text?: string | null; buffer?: Buffer | null }, extra: Partial<Field> = {}): Field {
  return {
    type,
    name: 'col',
    length: 1,
    db: 'd',
    table: 't',
    string: () => raw.text ?? null,
    buffer: () => raw.buffer ?? null,
    geometry: () => null,
    ...extra,
  };
}

describe('MySQL value mapping', () => {
  it.each([
    ['2024-01-31', '2024-01-31T00:00:00Z'],
    ['0000-00-00', '0000-00-00'],
    ['2024-00-10', '2024-00-10'],
    [null, null],
  ])('DATE %p -> %p', (input, expected) => {
    expect(mysqlDate(input)).toBe(expected);
  });

  it.each([
    ['2024-01-31 23:59:59', '2024-01-31T23:59:59Z'],
    ['2024-01-31 23:59:59.999999', '2024-01-31T23:59:59.999999Z'],
    ['2024-01-31 23:59:59.120000', '2024-01-31T23:59:59.12Z'],
    ['2024-01-31 23:59:59.000000', '2024-01-31T23:59:59Z'],
    ['0000-00-00 00:00:00', '0000-00-00 00:00:00'],
    [null, null],
  ])('DATETIME %p -> %p', (input, expected) => {
    expect(mysqlDateTime(input)).toBe(expected);
  });

  it('reads BIT(1) as a flag and wider BITs as exact integers', () => {
    expect(bitValue(Buffer.from([1]), 1)).toBe(true);
    expect(bitValue(Buffer.from([0]), 1)).toBe(false);
    expect(bitValue(Buffer.from([0x0a, 0x01]), 12)).toBe(2561n);
    expect(bitValue(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 64)).toBe(18446744073709551615n);
    expect(bitValue(null, 8)).toBeNull();
  });

  it('reads BIGINT text exactly', () => {
    expect(exactInteger('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(exactInteger('18446744073709551615')).toBe(18446744073709551615n);
    expect(exactInteger(null)).toBeNull();
  });

  it('hands bytes over as a plain Uint8Array view', () => {
    const buffer = Buffer.from([1, 2, 3]);
    const view = bytes(buffer)!;
    expect(view).toEqual(new Uint8Array([1, 2, 3]));
    expect(Buffer.isBuffer(view)).toBe(false);
    expect(bytes(null)).toBeNull();
  });

  describe('typeCast', () => {
    const cast = mysqlTypeCast(new Set(['doc']));
    const apply = (f: Field, next: unknown = undefined) => (cast as (f: Field, next: () => unknown) => unknown)(f, () => next);

    it('parses JSON columns without losing numbers, from the wire type, MariaDB metadata or discovery', () => {
      const text = '{"n": 12345678901234567890}';
      const expected = { n: new JsonNumber('12345678901234567890') };
      expect(apply(field('JSON', { text }))).toEqual(expected);
      expect(apply(field('BLOB', { text }, { extendedFormat: 'json' }))).toEqual(expected);
      expect(apply(field('BLOB', { text }, { name: 'doc' }))).toEqual(expected);
      expect(apply(field('JSON', { text: null }))).toBeNull();
    });

    it('converts what the driver parsed: BIGINT, dates, binary; passes the rest', () => {
      expect(apply(field('LONGLONG', {}), '9007199254740993')).toBe(9007199254740993n);
      expect(apply(field('DATE', {}), '2024-02-29')).toBe('2024-02-29T00:00:00Z');
      expect(apply(field('TIMESTAMP', {}), '2024-02-29 10:00:00.500')).toBe('2024-02-29T10:00:00.5Z');
      expect(apply(field('DATETIME', {}), null)).toBeNull();
      expect(apply(field('BLOB', {}), Buffer.from([0xff]))).toEqual(new Uint8Array([0xff]));
      expect(apply(field('VAR_STRING', {}), 'Zoë 🚀')).toBe('Zoë 🚀');
      expect(apply(field('NEWDECIMAL', {}), '12.50')).toBe('12.50');
      expect(apply(field('LONG', {}), 42)).toBe(42);
      expect(apply(field('BIT', { buffer: Buffer.from([1]) }, { length: 1 }))).toBe(true);
      expect(apply(field('GEOMETRY', { buffer: Buffer.from([0, 1]) }))).toEqual(new Uint8Array([0, 1]));
    });
  });
});
