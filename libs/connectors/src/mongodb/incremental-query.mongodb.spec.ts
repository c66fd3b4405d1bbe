import { ObjectId } from 'mongodb';
import { mongoKeyset } from './incremental-query.mongodb';
import { alwaysPresentFields, tableSchemaOf } from './schema-inference.mongodb';

const QUERY = { cursorField: 'at', cursorKind: 'datetime' as const, tieBreaker: '_id', tieBreakerKind: 'objectId' as const };
const KEY = '65a1b2c3d4e5f60718293a4b';

describe('MongoDB incremental keyset', () => {
  it('sorts by (cursor, tie-breaker) and limits; without after there is no bound', () => {
    expect(mongoKeyset({ ...QUERY, limit: 10 }, 'crm.events')).toEqual({ filter: {}, sort: { at: 1, _id: 1 }, limit: 10 });
    expect(Object.keys(mongoKeyset(QUERY, 'p').sort)).toEqual(['at', '_id']); // key order is the sort order
  });

  it('bounds after a position with typed values: (c > v) OR (c = v AND k > key)', () => {
    const { filter } = mongoKeyset({ ...QUERY, after: { value: '2026-03-01T08:00:00.5Z', key: KEY } }, 'crm.events');
    const at = new Date('2026-03-01T08:00:00.5Z');
    expect(filter).toEqual({ $or: [{ at: { $gt: at } }, { at, _id: { $gt: ObjectId.createFromHexString(KEY) } }] });
  });

  it('inside the NULL cursors continues by tie-breaker, then takes every non-NULL one', () => {
    const { filter } = mongoKeyset({ ...QUERY, nulls: 'first', after: { value: null, key: KEY } }, 'p');
    expect(filter).toEqual({ $or: [{ at: null, _id: { $gt: ObjectId.createFromHexString(KEY) } }, { at: { $ne: null } }] });
  });

  it('bounds a lag window by its start alone, as a typed value', () => {
    const { filter, sort } = mongoKeyset({ ...QUERY, after: { value: '2026-03-01T08:00:00.5Z', key: KEY }, from: '2026-03-01T07:59:00.5Z' }, 'p');
    expect(filter).toEqual({ at: { $gte: new Date('2026-03-01T07:59:00.5Z') } });
    expect(sort).toEqual({ at: 1, _id: 1 });
  });

  it('keeps a field named __proto__ an own key of the bound', () => {
    const { filter, sort } = mongoKeyset({ ...QUERY, cursorField: '__proto__', cursorKind: 'float', after: { value: 1, key: KEY } }, 'p');
    expect(Object.keys(sort)).toEqual(['__proto__', '_id']);
    expect(Object.keys((filter.$or as object[])[0])).toEqual(['__proto__']);
  });
});

describe('MongoDB facts for incremental planning', () => {
  it('marks fields missing or null in any sampled document nullable, strings binary-ordered, _id the key', () => {
    const present = alwaysPresentFields([{ _id: 1, a: 'x', b: null, c: 1 }, { _id: 2, a: 'y', c: 2 }, { _id: 3, a: 'z', b: 1 }]);
    expect([...present].sort()).toEqual(['_id', 'a']);
    const schema = tableSchemaOf('t', [], new Map([['_id', 'number'], ['a', 'string'], ['c', 'number']]), present);
    expect(schema).toEqual({
      name: 't',
      fields: ['_id', 'a', 'c'],
      columns: [
        { name: '_id', kind: 'float', nativeType: 'number', nullable: false },
        { name: 'a', kind: 'string', nativeType: 'string', nullable: false, ordering: 'binary' },
        { name: 'c', kind: 'float', nativeType: 'number', nullable: true },
      ],
      primaryKey: ['_id'],
    });
    expect(alwaysPresentFields([])).toEqual(new Set());
  });
});
