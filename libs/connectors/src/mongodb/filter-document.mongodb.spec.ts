import { Binary, Decimal128, ObjectId } from 'mongodb';
import { EngineError, type ColumnKind, type FilterCondition } from '@fetcher/engine';
import { buildFilterDocument, coerceValue, likePattern } from './filter-document.mongodb';

const PATH = 'crm.people';
const kinds = new Map<string, ColumnKind>([
  ['_id', 'objectId'],
  ['name', 'string'],
  ['age', 'float'],
  ['price', 'decimal'],
  ['createdAt', 'datetime'],
  ['active', 'boolean'],
  ['blob', 'binary'],
  ['tags', 'other'],
]);
const build = (conditions: Record<string, FilterCondition>) => buildFilterDocument(conditions, kinds, PATH);

describe(buildFilterDocument.name, () => {
  it('is empty without conditions', () => {
    expect(buildFilterDocument(undefined, kinds, PATH)).toEqual({});
    expect(build({})).toEqual({});
  });

  it('turns a single eq into an equality and several into $in', () => {
    expect(build({ name: { eq: ['ana'] } })).toEqual({ name: 'ana' });
    expect(build({ name: { eq: ['ana', 'bo'] } })).toEqual({ name: { $in: ['ana', 'bo'] } });
    expect(build({ name: { eq: [null] } })).toEqual({ name: null });
  });

  it('maps gt, gte, lt and lte with exactly one value', () => {
    expect(build({ age: { gt: [1], gte: [2], lt: [9], lte: [8] } })).toEqual({ age: { $gt: 1, $gte: 2, $lt: 9, $lte: 8 } });
    expect(() => build({ age: { gt: [1, 2] } })).toThrow(expect.objectContaining({ category: 'validation', message: 'filter operator requires exactly one value: crm.people.age' }));
  });

  it('lets between replace gte and lte, and ignores it with any other count (kept quirk)', () => {
    expect(build({ age: { gte: [0], lte: [100], between: [18, 65] } })).toEqual({ age: { $gte: 18, $lte: 65 } });
    expect(build({ age: { gte: [0], between: [18] } })).toEqual({ age: { $gte: 0 } });
    expect(build({ age: { between: [1, 2, 3] } })).toEqual({});
  });

  it('lets in replace a multi-value eq', () => {
    expect(build({ name: { eq: ['a', 'b'], in: ['c'] } })).toEqual({ name: { $in: ['c'] } });
  });

  it('maps nin, ne with one value to $ne and ne with several to $nin, replacing nin', () => {
    expect(build({ name: { nin: ['x', 'y'] } })).toEqual({ name: { $nin: ['x', 'y'] } });
    expect(build({ name: { ne: ['x'] } })).toEqual({ name: { $ne: 'x' } });
    expect(build({ name: { ne: [null] } })).toEqual({ name: { $ne: null } });
    expect(build({ name: { nin: ['q'], ne: ['x', 'y'] } })).toEqual({ name: { $nin: ['x', 'y'] } });
    expect(build({ name: { nin: ['q'], ne: ['x'] } })).toEqual({ name: { $nin: ['q'], $ne: 'x' } });
  });

  it('maps like to a case-insensitive regular expression (kept quirk)', () => {
    expect(build({ name: { like: ['Jo%'] } })).toEqual({ name: { $regex: '^Jo.*', $options: 'i' } });
    expect(build({ name: { like: [5] } })).toEqual({});
  });

  it('replaces a single eq with the operator document when combined (kept quirk)', () => {
    expect(build({ age: { eq: [30], gt: [10] } })).toEqual({ age: { $gt: 10 } });
    expect(build({ name: { eq: ['ana'], like: ['b%'] } })).toEqual({ name: { $regex: '^b.*', $options: 'i' } });
  });

  it('skips empty conditions and keeps each field separate', () => {
    expect(build({ name: { eq: [], in: [] }, age: { lt: [3] } })).toEqual({ age: { $lt: 3 } });
  });

  it('passes dotted paths through as query paths', () => {
    expect(build({ 'address.city': { eq: ['Lisboa'] } })).toEqual({ 'address.city': 'Lisboa' });
  });

  it('rejects an operator whose values are not a list', () => {
    expect(() => build({ name: { eq: 'ana' as unknown as readonly unknown[] } })).toThrow(expect.objectContaining({ category: 'validation', message: 'filter value does not match the column type: crm.people.name' }));
  });

  it('keeps a __proto__ field as a filter key', () => {
    const filter = build(JSON.parse('{"__proto__": {"eq": [1]}}') as Record<string, FilterCondition>);
    expect(Object.keys(filter)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(filter)).toBe(Object.prototype);
  });
});

describe(likePattern.name, () => {
  it.each([
    ['abc', '^abc$'],
    ['%abc', '.*abc$'],
    ['abc%', '^abc.*'],
    ['%abc%', '.*abc.*'],
    ['a_c', '^a.c$'],
    ['a.b*c+(d)[e]{f}|g?^h$i\\j', '^a\\.b\\*c\\+\\(d\\)\\[e\\]\\{f\\}\\|g\\?\\^h\\$i\\\\j$'],
    ['%', '.*'],
    ['', '^$'],
  ])('%s -> %s', (like, pattern) => {
    expect(likePattern(like)).toBe(pattern);
  });

  it('matches like SQL LIKE would, case-insensitively', () => {
    const matches = (like: string, text: string) => new RegExp(likePattern(like), 'i').test(text);
    expect(matches('a.c%', 'A.Cdef')).toBe(true);
    expect(matches('a.c%', 'abcdef')).toBe(false);
    expect(matches('%x_z', 'wwxyz')).toBe(true);
    expect(matches('%x_z', 'wwxyzz')).toBe(false);
  });
});

describe(coerceValue.name, () => {
  it('turns 24-hex strings into ObjectIds for objectId fields', () => {
    const value = coerceValue('objectId', '65A1B2C3D4E5F60718293A4B', 'p.f');
    expect(value).toBeInstanceOf(ObjectId);
    expect((value as ObjectId).toHexString()).toBe('65a1b2c3d4e5f60718293a4b');
    expect(() => coerceValue('objectId', 'xyz', 'p.f')).toThrow(expect.objectContaining({ category: 'validation', message: 'filter value does not match the column type: p.f' }));
    expect(() => coerceValue('objectId', 12, 'p.f')).toThrow(EngineError);
  });

  it('turns ISO strings into Dates for datetime fields (no zone means UTC)', () => {
    expect(coerceValue('datetime', '2024-01-02', 'p.f')).toEqual(new Date('2024-01-02T00:00:00Z'));
    expect(coerceValue('datetime', '2024-01-02T03:04:05.678+01:00', 'p.f')).toEqual(new Date('2024-01-02T02:04:05.678Z'));
    expect(coerceValue('datetime', '2024-01-02T03:04:05', 'p.f')).toEqual(new Date('2024-01-02T03:04:05Z'));
    expect(() => coerceValue('datetime', '2024-02-30', 'p.f')).toThrow(EngineError);
    expect(() => coerceValue('datetime', 1700000000, 'p.f')).toThrow(EngineError);
  });

  it('accepts numbers and numeric strings for number fields, exact beyond 2^53', () => {
    expect(coerceValue('float', 1.5, 'p.f')).toBe(1.5);
    expect(coerceValue('float', '42', 'p.f')).toBe(42);
    expect(coerceValue('float', '-2.5e3', 'p.f')).toBe(-2500);
    expect(coerceValue('float', '9007199254740993', 'p.f')).toBe(9007199254740993n);
    expect(coerceValue('float', 9007199254740993n, 'p.f')).toBe(9007199254740993n);
    expect(coerceValue('float', '99999999999999999999', 'p.f')).toBe(1e20);
    expect(() => coerceValue('float', 'abc', 'p.f')).toThrow(EngineError);
    expect(() => coerceValue('float', Infinity, 'p.f')).toThrow(EngineError);
  });

  it('turns numeric strings into Decimal128 for decimal fields', () => {
    const value = coerceValue('decimal', '+2500.00', 'p.f');
    expect(value).toBeInstanceOf(Decimal128);
    expect(String(value)).toBe('2500.00');
    expect(coerceValue('decimal', 3, 'p.f')).toBe(3);
    expect(String(coerceValue('decimal', '.5', 'p.f'))).toBe('0.5');
    expect(Number(coerceValue('decimal', '1.', 'p.f'))).toBe(1);
    expect(() => coerceValue('decimal', 'x', 'p.f')).toThrow(EngineError);
  });

  it('accepts booleans and their text for boolean fields', () => {
    expect(coerceValue('boolean', true, 'p.f')).toBe(true);
    expect(coerceValue('boolean', 'false', 'p.f')).toBe(false);
    expect(() => coerceValue('boolean', 'yes', 'p.f')).toThrow(EngineError);
  });

  it('turns UUID text into a UUID binary and base64 into a generic binary for binary fields', () => {
    const uuid = coerceValue('binary', '550E8400-e29b-41d4-a716-446655440000', 'p.f') as Binary;
    expect(uuid.sub_type).toBe(Binary.SUBTYPE_UUID);
    expect(uuid.toString('hex')).toBe('550e8400e29b41d4a716446655440000');
    const generic = coerceValue('binary', 'AAEC', 'p.f') as Binary;
    expect(generic.sub_type).toBe(Binary.SUBTYPE_DEFAULT);
    expect(Array.from(generic.value())).toEqual([0, 1, 2]);
    expect(() => coerceValue('binary', 'not base64!', 'p.f')).toThrow(EngineError);
  });

  it('keeps values as given for string and other fields, and null everywhere', () => {
    expect(coerceValue('string', 5, 'p.f')).toBe(5);
    expect(coerceValue('other', 'x', 'p.f')).toBe('x');
    expect(coerceValue('objectId', null, 'p.f')).toBeNull();
    expect(coerceValue('datetime', null, 'p.f')).toBeNull();
  });

  it('coerces inside every operator of a field', () => {
    const filter = build({ createdAt: { between: ['2024-01-01', '2024-01-31T23:59:59Z'] }, _id: { in: ['65a1b2c3d4e5f60718293a4b'] } });
    expect(filter).toEqual({
      createdAt: { $gte: new Date('2024-01-01T00:00:00Z'), $lte: new Date('2024-01-31T23:59:59Z') },
      _id: { $in: [ObjectId.createFromHexString('65a1b2c3d4e5f60718293a4b')] },
    });
  });

  it('lets a date-only upper bound of between cover that whole day on a date-time field, as SQL does', () => {
    expect(build({ createdAt: { between: ['2024-01-01', '2024-01-31'] } })).toEqual({
      createdAt: { $gte: new Date('2024-01-01T00:00:00Z'), $lt: new Date('2024-02-01T00:00:00Z') },
    });
    expect(build({ createdAt: { between: ['2024-02-28', '2024-02-29'] } })).toEqual({
      createdAt: { $gte: new Date('2024-02-28T00:00:00Z'), $lt: new Date('2024-03-01T00:00:00Z') },
    });
  });

  it.each(['$where', '$expr', '$or', 'a.$gt', 'nested.$where.x'])('never reads the field %s as an operator: filtering on it is refused', (field) => {
    const kindsWithDollar = new Map<string, ColumnKind>([[field, 'string']]);
    expect(() => buildFilterDocument({ [field]: { eq: ['sleep(1000) || true'] } }, kindsWithDollar, PATH)).toThrow(
      expect.objectContaining({ category: 'validation' }) as Error,
    );
  });

  it('does not coerce fields the inference does not know', () => {
    expect(build({ missing: { eq: ['2024-01-01'] } })).toEqual({ missing: '2024-01-01' });
  });
});
