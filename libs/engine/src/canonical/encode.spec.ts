import { JsonNumber } from '../models';
import { base64, canonicalTimestamp, compareUtf8, encodeCanonicalJson } from './encode';

describe('encodeCanonicalJson', () => {
  it('sorts keys by UTF-8 byte order at every level and writes compact JSON', () => {
    const value = { b: 1, a: { z: [1, { y: true, x: null }], '\u{1F600}': 1, '\uFFFD': 2 } };
    expect(encodeCanonicalJson(value)).toBe('{"a":{"z":[1,{"x":null,"y":true}],"\uFFFD":2,"\u{1F600}":1},"b":1}');
  });

  it('writes a lone-surrogate key as U+FFFD, in the place U+FFFD sorts', () => {
    expect(encodeCanonicalJson({ '\uFFFE': 1, '\ud800': 2, a: 3 })).toBe('{"a":3,"\uFFFD":2,"\uFFFE":1}');
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

  it('replaces lone surrogates and leaves <, > and & unescaped', () => {
    expect(encodeCanonicalJson('<a&b>\ud800\n')).toBe('"<a&b>\uFFFD\\n"');
  });

  it('rejects values JSON cannot hold with the fixed serialisation error', () => {
    expect(() => encodeCanonicalJson({ f: (() => 1) as never })).toThrow('failed to serialize extraction result');
    expect(() => encodeCanonicalJson(new JsonNumber('1e') as never)).toThrow('failed to serialize extraction result');
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

  it('orders a lone surrogate as the U+FFFD it is written as', () => {
    expect(['\uFFFE', '\ud800', '\uFFFC', '\u{10000}'].sort(compareUtf8)).toEqual(['\uFFFC', '\ud800', '\uFFFE', '\u{10000}']);
    expect(compareUtf8('\ud83d\ude00', '\ud83dA')).toBeGreaterThan(0);
    expect(compareUtf8('\ud83d', '\ud83d\ude00')).toBeLessThan(0);
    expect(compareUtf8('same\ud800', 'same\ud800')).toBe(0);
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
