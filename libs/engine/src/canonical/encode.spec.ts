import { JsonNumber } from '../models';
import { base64, canonicalTimestamp, compareUtf8, encodeCanonicalJson } from './encode';

describe('encodeCanonicalJson', () => {
  it('sorts keys by UTF-8 byte order at every level and writes compact JSON', () => {
    const value = { b: 1, a: { z: [1, { y: true, x: null }], '\u{1F600}': 1, '\uFFFD': 2 } };
    expect(encodeCanonicalJson(value)).toBe('{"a":{"z":[1,{"x":null,"y":true}],"\uFFFD":2,"\u{1F600}":1},"b":1}');
  });

  it('keeps keys that differ only in lone surrogates distinct, and parses back to them', () => {
    const value = { '\ud800': 1, '\udbff': 2, '\uFFFD': 3, 'x\udc00': 4 };
    const text = encodeCanonicalJson(value);
    expect(text).toBe('{"x\\udc00":4,"\\ud800":1,"\\udbff":2,"\uFFFD":3}');
    expect(JSON.parse(text)).toEqual(value);
    expect(Object.keys(JSON.parse(text) as object)).toHaveLength(4);
  });

  it('keeps 64-bit integers and decimal literals exact', () => {
    expect(encodeCanonicalJson({ big: 9007199254740993n, dec: new JsonNumber('12345678901234567890.000001') })).toBe(
      '{"big":9007199254740993,"dec":12345678901234567890.000001}',
    );
  });

  it('writes non-finite floats as strings and binary as base64', () => {
    expect(encodeCanonicalJson([NaN, Infinity, -Infinity, -0, 0.1, new Uint8Array([1, 2, 3, 4])])).toBe(
      '["NaN","Infinity","-Infinity",0,0.1,"AQIDBA=="]',
    );
  });

  it('escapes lone surrogates as \\uXXXX, keeps pairs and U+FFFD as they are, and leaves <, > and & unescaped', () => {
    expect(encodeCanonicalJson('<a&b>\ud800\n')).toBe('"<a&b>\\ud800\\n"');
    expect(encodeCanonicalJson('\udfff\u{1F600}\uFFFD\ud83d')).toBe('"\\udfff\u{1F600}\uFFFD\\ud83d"');
  });

  it('rejects values JSON cannot hold with the fixed serialisation error', () => {
    expect(() => encodeCanonicalJson({ f: (() => 1) as never })).toThrow(expect.objectContaining({ category: 'internal', message: 'failed to serialize extraction result' }));
    expect(() => encodeCanonicalJson(new JsonNumber('1e') as never)).toThrow(expect.objectContaining({ category: 'internal', message: 'failed to serialize extraction result' }));
  });
});

describe(canonicalTimestamp.name, () => {
  it('trims trailing fraction zeros', () => {
    expect(canonicalTimestamp(new Date('2026-01-02T03:04:05.120Z'))).toBe('2026-01-02T03:04:05.12Z');
    expect(canonicalTimestamp(new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05Z');
  });
});

describe(compareUtf8.name, () => {
  it('orders astral characters after the end of the BMP', () => {
    expect(['\u{10000}', '\uFFFF', 'a'].sort(compareUtf8)).toEqual(['a', '\uFFFF', '\u{10000}']);
  });

  it('orders a lone surrogate by its own code point, between U+D7FF and U+E000', () => {
    expect(['\uFFFE', '\ud800', '\uE000', '\uD7FF', '\u{10000}', '\udfff'].sort(compareUtf8)).toEqual([
      '\uD7FF', '\ud800', '\udfff', '\uE000', '\uFFFE', '\u{10000}',
    ]);
    expect(compareUtf8('\ud83d\ude00', '\ud83dA')).toBeGreaterThan(0);
    expect(compareUtf8('\ud83d', '\ud83d\ude00')).toBeLessThan(0);
    expect(compareUtf8('same\ud800', 'same\ud800')).toBe(0);
    expect(compareUtf8('\ud800', '\udbff')).toBeLessThan(0);
  });
});

describe(base64.name, () => {
  it('matches Node for every tail length', () => {
    for (let n = 0; n < 8; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 97 + 13) & 255);
      expect(base64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});
