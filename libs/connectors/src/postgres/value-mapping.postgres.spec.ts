import { JsonNumber } from '@fetcher/engine';
import {
  RAW_TEXT_TYPES,
  byteaFromText,
  dateFromText,
  parseArrayLiteral,
  postgresColumnKind,
  textConverter,
  timestampFromText,
} from './value-mapping.postgres';

const scalar = (udtName: string, dataType = udtName) => textConverter({ udtName, dataType });

describe('PostgreSQL value mapping', () => {
  it('keeps every value as the server text: the pg type parsers are the identity', () => {
    for (const oid of [16, 20, 700, 701, 790, 1082, 1114, 1184, 114, 3802, 17, 1700, 1016, 1185]) {
      const parse = RAW_TEXT_TYPES.getTypeParser(oid, 'text') as (value: string) => unknown;
      expect(parse('12345678901234567890')).toBe('12345678901234567890');
    }
  });

  it.each([
    ['2024-01-02 03:04:05+00', '2024-01-02T03:04:05Z'],
    ['2024-01-02 03:04:05.120+00', '2024-01-02T03:04:05.12Z'],
    ['2024-01-02 03:04:05.000001', '2024-01-02T03:04:05.000001Z'],
    ['2024-01-01 00:30:00+05:30', '2023-12-31T19:00:00Z'],
    ['2024-12-31 23:00:00-02', '2025-01-01T01:00:00Z'],
    ['1900-01-01 00:00:00+00:09:21', '1899-12-31T23:50:39Z'],
    ['0001-01-01 00:00:00+00 BC', '0000-01-01T00:00:00Z'],
    ['0044-03-15 12:00:00 BC', '-0043-03-15T12:00:00Z'],
    ['294276-12-31 23:59:59.999999+00', '+294276-12-31T23:59:59.999999Z'],
    ['infinity', 'infinity'],
    ['-infinity', '-infinity'],
  ])('timestamp %s -> %s', (text, iso) => {
    expect(timestampFromText(text)).toBe(iso);
  });

  it('keeps a timestamp text of an unknown shape rather than guessing', () => {
    expect(timestampFromText('Tue Jan 02 03:04:05 2024')).toBe('Tue Jan 02 03:04:05 2024');
  });

  it.each([
    ['2024-02-29', '2024-02-29T00:00:00Z'],
    ['0001-01-01 BC', '0000-01-01T00:00:00Z'],
    ['5874897-12-31', '+5874897-12-31T00:00:00Z'],
    ['infinity', 'infinity'],
  ])('date %s -> %s', (text, iso) => {
    expect(dateFromText(text)).toBe(iso);
  });

  it('reads bytea in hex and in the legacy escape format', () => {
    expect(Array.from(byteaFromText('\\x00ff10'))).toEqual([0, 255, 16]);
    expect(Array.from(byteaFromText('\\x'))).toEqual([]);
    expect(Array.from(byteaFromText('a\\\\b\\001\\377'))).toEqual([97, 92, 98, 1, 255]);
  });

  it('parses array literals: nesting, quoting, NULL, dimensions and the box delimiter', () => {
    const text = (value: string) => value;
    expect(parseArrayLiteral('{}', text)).toEqual([]);
    expect(parseArrayLiteral('{a,"b,c",NULL,"NULL","q\\"x","back\\\\slash"," sp "}', text)).toEqual(['a', 'b,c', null, 'NULL', 'q"x', 'back\\slash', ' sp ']);
    expect(parseArrayLiteral('{{1,2},{3,NULL}}', Number)).toEqual([[1, 2], [3, null]]);
    expect(parseArrayLiteral('[0:1]={7,8}', Number)).toEqual([7, 8]);
    expect(parseArrayLiteral('{(1,1),(0,0);(2,2),(1,1)}', text, ';')).toEqual(['(1,1),(0,0)', '(2,2),(1,1)']);
    expect(() => parseArrayLiteral('{1,2', text)).toThrow(SyntaxError);
  });

  it('converts values by their column type', () => {
    expect(scalar('bool')('t')).toBe(true);
    expect(scalar('bool')('f')).toBe(false);
    expect(scalar('int2')('-32768')).toBe(-32768);
    expect(scalar('int4')('2147483647')).toBe(2147483647);
    expect(scalar('int8')('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(scalar('numeric')('12345678901234567890.10')).toBe('12345678901234567890.10');
    expect(scalar('money')('$1,234.50')).toBe('$1,234.50');
    expect(scalar('float8')('0.1')).toBe(0.1);
    expect(scalar('float8')('-Infinity')).toBe(-Infinity);
    expect(Number.isNaN(scalar('float4')('NaN'))).toBe(true);
    expect(scalar('uuid')('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(scalar('date')('2024-01-02')).toBe('2024-01-02T00:00:00Z');
    expect(scalar('timestamptz')('2024-01-02 03:04:05.5+00')).toBe('2024-01-02T03:04:05.5Z');
    expect(scalar('jsonb')('{"a": 12345678901234567890}')).toEqual({ a: new JsonNumber('12345678901234567890') });
    expect(Array.from(scalar('bytea')('\\x0102') as Uint8Array)).toEqual([1, 2]);
    expect(scalar('interval')('1 day')).toBe('1 day');
    expect(scalar('mood', 'USER-DEFINED')('happy')).toBe('happy');
    expect(scalar('_int8', 'ARRAY')('{1,NULL}')).toEqual([1n, null]);
    expect(scalar('_timestamptz', 'ARRAY')('{"2024-01-02 03:04:05+00"}')).toEqual(['2024-01-02T03:04:05Z']);
    expect(scalar('_bytea', 'ARRAY')('{"\\\\x0a"}')).toEqual([Uint8Array.from([10])]);
  });

  it.each([
    ['int2', 'smallint', 'integer'],
    ['int8', 'bigint', 'integer'],
    ['numeric', 'numeric', 'decimal'],
    ['money', 'money', 'decimal'],
    ['float4', 'real', 'float'],
    ['bool', 'boolean', 'boolean'],
    ['uuid', 'uuid', 'uuid'],
    ['date', 'date', 'date'],
    ['timestamptz', 'timestamp with time zone', 'datetime'],
    ['timetz', 'time with time zone', 'time'],
    ['jsonb', 'jsonb', 'json'],
    ['bytea', 'bytea', 'binary'],
    ['bpchar', 'character', 'string'],
    ['citext', 'USER-DEFINED', 'string'],
    ['mood', 'USER-DEFINED', 'other'],
    ['_text', 'ARRAY', 'other'],
    ['inet', 'inet', 'other'],
  ])('the kind of %s (%s) is %s', (udtName, dataType, kind) => {
    expect(postgresColumnKind({ udtName, dataType })).toBe(kind);
  });
});
