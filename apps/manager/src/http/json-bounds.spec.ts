import { hasNulKey, MAX_JSON_DEPTH, withinJsonBounds } from './json-bounds';

const nested = (levels: number): unknown => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));

describe(withinJsonBounds.name, () => {
  it.each([
    ['a plain body', { a: [1, 'x', null, true], b: { c: 1e308 } }, true],
    [`${MAX_JSON_DEPTH} levels`, nested(MAX_JSON_DEPTH), true],
    [`${MAX_JSON_DEPTH + 1} levels`, nested(MAX_JSON_DEPTH + 1), false],
    ['100 000 levels', nested(100_000), false],
    ['1e400 (Infinity) deep inside', JSON.parse('{"a":[{"b":1e400}]}'), false],
    ['-1e400', JSON.parse('{"a":-1e400}'), false],
  ])('%s: %s', (_name, value, expected) => expect(withinJsonBounds(value)).toBe(expected));
});

describe(hasNulKey.name, () => {
  it('finds U+0000 in keys at any depth, not in values', () => {
    expect(hasNulKey(JSON.parse('{"a":[{"b\\u0000":1}]}'))).toBe(true);
    expect(hasNulKey({ a: 'x\u0000y' })).toBe(false);
    expect(hasNulKey(Array.from({ length: 1_000_000 }, () => 1))).toBe(false);
  });
});
