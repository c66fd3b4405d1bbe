import { Binary, Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { canonicalKey } from './canonical-key';

describe(canonicalKey.name, () => {
  it('is equal for numbers of equal value whatever their BSON type', () => {
    const keys = [1, new Int32(1), new Double(1), Long.fromNumber(1), Decimal128.fromString('1.0')].map(canonicalKey);
    expect(new Set(keys).size).toBe(1);
    expect(canonicalKey(new Double(1.5))).not.toBe(canonicalKey(1));
  });

  it('distinguishes binaries whose bytes are not valid UTF-8', () => {
    const a = new Binary(Buffer.alloc(16, 0xff), 4);
    const b = new Binary(Buffer.alloc(16, 0xfe), 4);
    expect(a.toString()).toBe(b.toString()); // the trap: same text, different bytes
    expect(canonicalKey(a)).not.toBe(canonicalKey(b));
    expect(canonicalKey(a)).toBe(canonicalKey(new Binary(Buffer.alloc(16, 0xff), 4)));
  });

  it('distinguishes binary subtypes, and strings from other types', () => {
    expect(canonicalKey(new Binary(Buffer.from([1]), 0))).not.toBe(canonicalKey(new Binary(Buffer.from([1]), 4)));
    expect(canonicalKey('1')).not.toBe(canonicalKey(1));
    expect(canonicalKey('null')).not.toBe(canonicalKey(null));
  });

  it('treats missing as null, and respects document field order', () => {
    expect(canonicalKey(undefined)).toBe(canonicalKey(null));
    expect(canonicalKey({ a: 1, b: 2 })).not.toBe(canonicalKey({ b: 2, a: 1 }));
    expect(canonicalKey({ a: [1, { b: 'x' }] })).toBe(canonicalKey({ a: [new Int32(1), { b: 'x' }] }));
  });

  it('keys ObjectIds and dates by value', () => {
    const hex = '65a1b2c3d4e5f60718293a4b';
    expect(canonicalKey(new ObjectId(hex))).toBe(canonicalKey(new ObjectId(hex)));
    expect(canonicalKey(new Date(5))).toBe(canonicalKey(new Date(5)));
    expect(canonicalKey(new Date(5))).not.toBe(canonicalKey(5));
  });
});
