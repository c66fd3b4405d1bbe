import { createHash } from 'node:crypto';
import { canonicalJson, sha256Hex } from './canonical-json';

describe(canonicalJson.name, () => {
  it.each([
    [{ b: 1, a: [3, { d: null, c: 'x' }] }, '{"a":[3,{"c":"x","d":null}],"b":1}'],
    [{ z: undefined, y: 1e21, x: 0.1, w: -0 }, '{"w":0,"x":0.1,"y":1e+21}'],
    [['\u2028', 'é"\\'], '["\u2028","é\\"\\\\"]'],
    [{ when: new Date('2026-01-01T00:00:00Z') }, '{"when":"2026-01-01T00:00:00.000Z"}'],
    [[undefined], '[null]'],
  ])('writes %j as %s', (value, expected) => expect(canonicalJson(value)).toBe(expected));

  it('orders keys by UTF-8 bytes, not UTF-16 code units', () => {
    // UTF-16 puts U+1F600 (surrogate 0xD83D) before U+FF5E; UTF-8 puts U+FF5E (EF BD 9E) before it (F0 9F 98 80).
    expect(canonicalJson({ '\u{1F600}': 1, '\uFF5E': 2 })).toBe('{"\uFF5E":2,"\u{1F600}":1}');
    expect(canonicalJson({ b: 1, B: 2, a: 3 })).toBe('{"B":2,"a":3,"b":1}');
  });

  it('refuses values without a faithful JSON form', () => {
    expect(() => canonicalJson(NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

describe(sha256Hex.name, () => {
  it('hashes UTF-8 text to lower-case hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(createHash('sha256').update(Buffer.from([0xc3, 0xa9])).digest('hex'));
  });
});
