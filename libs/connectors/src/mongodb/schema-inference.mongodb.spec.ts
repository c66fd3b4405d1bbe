import { BSONRegExp, Binary, Code, Decimal128, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'mongodb';
import {
  BSON_TYPE_RANK,
  bsonTypeOf,
  inferFieldTypes,
  keyInferencePipeline,
  keysFromGroupResult,
  kindOfBsonType,
  tableSchemaOf,
} from './schema-inference.mongodb';

const TAIL = [
  { $project: { kv: { $objectToArray: '$$ROOT' } } },
  { $unwind: '$kv' },
  { $group: { _id: null, keys: { $addToSet: '$kv.k' } } },
];

describe(keyInferencePipeline.name, () => {
  it.each([
    [0, { $limit: 1 }],
    [1, { $limit: 1 }],
    [999, { $limit: 999 }],
    [1000, { $limit: 1000 }],
    [10_000, { $limit: 1000 }],
    [10_001, { $sample: { size: 2000 } }],
    [100_000, { $sample: { size: 2000 } }],
    [100_001, { $sample: { size: 5000 } }],
    [1_000_000, { $sample: { size: 5000 } }],
    [1_000_001, { $sample: { size: 10_000 } }],
  ])('for %i documents starts with %j', (count, head) => {
    expect(keyInferencePipeline(count)).toEqual([head, ...TAIL]);
  });
});

describe(keysFromGroupResult.name, () => {
  it('reads the grouped keys, and nothing from an empty or odd result', () => {
    expect(keysFromGroupResult([{ _id: null, keys: ['b', 'a', 3] }])).toEqual(['b', 'a']);
    expect(keysFromGroupResult([])).toEqual([]);
    expect(keysFromGroupResult([{ _id: null }])).toEqual([]);
  });
});

describe(bsonTypeOf.name, () => {
  it.each([
    [new ObjectId(), 'objectId'],
    [new Date(), 'date'],
    [new Timestamp({ t: 1, i: 1 }), 'timestamp'],
    [Decimal128.fromString('1.5'), 'decimal'],
    [new Binary(Uint8Array.of(1)), 'binData'],
    [new Binary(new Uint8Array(16), Binary.SUBTYPE_UUID), 'uuid'],
    [new Binary(new Uint8Array(16), Binary.SUBTYPE_DEFAULT), 'binData'],
    [new Binary(new Uint8Array(8), Binary.SUBTYPE_UUID), 'binData'],
    [new BSONRegExp('a', 'i'), 'regex'],
    [/a/, 'regex'],
    [new MinKey(), 'minKey'],
    [new MaxKey(), 'maxKey'],
    [1.5, 'number'],
    [7n, 'number'],
    [new Int32(1), 'number'],
    [Long.fromNumber(1), 'number'],
    ['s', 'string'],
    [false, 'boolean'],
    [[1], 'array'],
    [{ a: 1 }, 'object'],
    [null, 'unknown'],
    [undefined, 'unknown'],
    [new Code('x'), 'unknown'],
  ])('%p is %s', (value, type) => {
    expect(bsonTypeOf(value)).toBe(type);
  });
});

describe(inferFieldTypes.name, () => {
  it('keeps the highest-ranked type per field, and the first seen on a tie', () => {
    const types = inferFieldTypes([
      { a: 's', b: 1, c: true, d: null },
      { a: 2, b: new Date(), c: 'x', d: null },
      { a: 'again', b: new ObjectId(), e: [1] },
    ]);
    expect(Object.fromEntries(types)).toEqual({ a: 'number', b: 'objectId', c: 'boolean', d: 'unknown', e: 'array' });
  });

  it('ranks types as the spec lists them', () => {
    const order = ['objectId', 'date', 'timestamp', 'decimal', 'binData', 'regex', 'minKey', 'number', 'string', 'unknown'] as const;
    for (let i = 1; i < order.length; i++) expect(BSON_TYPE_RANK[order[i - 1]]).toBeGreaterThan(BSON_TYPE_RANK[order[i]]);
    expect(BSON_TYPE_RANK.maxKey).toBe(BSON_TYPE_RANK.minKey);
    for (const tied of ['boolean', 'array', 'object'] as const) expect(BSON_TYPE_RANK[tied]).toBe(BSON_TYPE_RANK.string);
  });
});

describe(kindOfBsonType.name, () => {
  it('maps inferred types to column kinds', () => {
    expect(kindOfBsonType('objectId')).toBe('objectId');
    expect(kindOfBsonType('date')).toBe('datetime');
    expect(kindOfBsonType('decimal')).toBe('decimal');
    expect(kindOfBsonType('number')).toBe('float');
    expect(kindOfBsonType('string')).toBe('string');
    expect(kindOfBsonType('boolean')).toBe('boolean');
    expect(kindOfBsonType('binData')).toBe('binary');
    expect(kindOfBsonType('uuid')).toBe('uuid');
    for (const other of ['timestamp', 'regex', 'minKey', 'maxKey', 'array', 'object', 'unknown'] as const) {
      expect(kindOfBsonType(other)).toBe('other');
    }
  });
});

describe(tableSchemaOf.name, () => {
  it('takes the sorted union of keys and sampled fields; unsampled keys are unknown', () => {
    const schema = tableSchemaOf('people', ['name', '_id', 'rare'], new Map([['_id', 'objectId'], ['age', 'number'], ['name', 'string']]));
    expect(schema).toEqual({
      name: 'people',
      fields: ['_id', 'age', 'name', 'rare'],
      columns: [
        { name: '_id', kind: 'objectId', nativeType: 'objectId' },
        { name: 'age', kind: 'float', nativeType: 'number' },
        { name: 'name', kind: 'string', nativeType: 'string' },
        { name: 'rare', kind: 'other', nativeType: 'unknown' },
      ],
    });
  });
});
