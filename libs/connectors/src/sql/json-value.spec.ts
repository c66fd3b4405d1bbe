import { JsonNumber, encodeCanonicalJson } from '@fetcher/engine';
import { parseJsonColumn } from './json-value';

describe('parseJsonColumn', () => {
  it('keeps every number literal exactly', () => {
    const value = parseJsonColumn('{"big": 12345678901234567890, "dec": 1.10, "exp": -2.5e-7, "list": [0, 9007199254740993]}');
    expect(value).toEqual({
      big: new JsonNumber('12345678901234567890'),
      dec: new JsonNumber('1.10'),
      exp: new JsonNumber('-2.5e-7'),
      list: [new JsonNumber('0'), new JsonNumber('9007199254740993')],
    });
    expect(encodeCanonicalJson(value)).toBe('{"big":12345678901234567890,"dec":1.10,"exp":-2.5e-7,"list":[0,9007199254740993]}');
  });

  it('parses scalars, nulls, unicode and nesting', () => {
    expect(parseJsonColumn('"Zoë 🚀"')).toBe('Zoë 🚀');
    expect(parseJsonColumn('null')).toBeNull();
    expect(parseJsonColumn('[true, {"a": {"b": []}}]')).toEqual([true, { a: { b: [] } }]);
  });

  it('keeps the last of duplicate keys, as JSON.parse does', () => {
    expect(parseJsonColumn('{"a": 1, "a": 2}')).toEqual({ a: new JsonNumber('2') });
  });

  it('stores a __proto__ key as data, not as a prototype', () => {
    const value = parseJsonColumn('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('returns text that is not JSON as the string it is', () => {
    expect(parseJsonColumn('{not json')).toBe('{not json');
    expect(parseJsonColumn('')).toBe('');
  });
});
