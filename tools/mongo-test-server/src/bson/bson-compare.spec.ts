import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { compareBson } from './bson-compare';

describe(compareBson.name, () => {
  it('orders values by BSON type first', () => {
    const ascending = [
      new MinKey(), null, new Int32(5), 'a', { a: 1 }, [1], new Binary(Buffer.from([0])), new ObjectId('000000000000000000000000'),
      false, new Date(0), new Timestamp({ t: 1, i: 1 }), new BSONRegExp('a', ''), new MaxKey(),
    ];
    const shuffled = [...ascending].reverse();
    expect(shuffled.sort(compareBson)).toEqual(ascending);
  });

  it('treats undefined (a missing field) like null', () => {
    expect(compareBson(undefined, null)).toBe(0);
  });

  it('compares numbers by value across Int32, Long, Double and Decimal128', () => {
    expect(compareBson(new Int32(2), new Double(2))).toBe(0);
    expect(compareBson(Long.fromNumber(3), new Double(2.5))).toBe(1);
    expect(compareBson(Decimal128.fromString('1.5'), new Int32(2))).toBe(-1);
    expect(compareBson(Long.fromString('9223372036854775807'), Long.fromString('9223372036854775806'))).toBe(1);
    expect(compareBson(Number.NaN, -Infinity)).toBe(-1);
  });

  it('orders binaries by length, then subtype, then bytes', () => {
    expect(compareBson(new Binary(Buffer.from([9]), 0), new Binary(Buffer.from([0, 0]), 0))).toBe(-1);
    expect(compareBson(new Binary(Buffer.from([9]), 0), new Binary(Buffer.from([0]), 4))).toBe(-1);
    expect(compareBson(new Binary(Buffer.from([0xfe]), 4), new Binary(Buffer.from([0xff]), 4))).toBe(-1);
  });

  it('compares documents field by field and arrays element by element', () => {
    expect(compareBson({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(-1);
    expect(compareBson({ a: 1 }, { b: 0 })).toBe(-1);
    expect(compareBson({ a: 1 }, { a: 1, b: 0 })).toBe(-1);
    expect(compareBson([1, 2], [1, 2, 0])).toBe(-1);
    expect(compareBson([2], [1, 9])).toBe(1);
  });

  it('compares strings by UTF-8 bytes', () => {
    expect(compareBson('Z', 'a')).toBe(-1);
    expect(compareBson('\uffff', '\u{1F600}')).toBe(-1);
  });
});
