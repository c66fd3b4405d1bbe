import {
  BSON,
  BSONRegExp,
  BSONSymbol,
  Binary,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
} from 'mongodb';
import { encodeCanonicalRow } from '@fetcher/engine';
import { decodeDocument, mapBsonValue, uuidText } from './value-mapping.mongodb';

const roundTrip = (document: BSON.Document) => decodeDocument(BSON.serialize(document));

describe('MongoDB value mapping', () => {
  it('maps ObjectId to its lower-case hex', () => {
    expect(mapBsonValue(ObjectId.createFromHexString('65A1B2C3D4E5F60718293A4B'))).toBe('65a1b2c3d4e5f60718293a4b');
  });

  it('maps dates to ISO UTC with milliseconds, trailing zeros trimmed', () => {
    expect(mapBsonValue(new Date('2024-03-05T06:07:08.120Z'))).toBe('2024-03-05T06:07:08.12Z');
    expect(mapBsonValue(new Date('2024-03-05T06:07:08.000Z'))).toBe('2024-03-05T06:07:08Z');
  });

  it('maps a date outside the JS range to null instead of failing the row', () => {
    const row = roundTrip({ d: new Date(0) });
    expect(row).toEqual({ d: '1970-01-01T00:00:00Z' });
    const bytes = BSON.serialize({ d: new Date(0) });
    // Patch the int64 millis (after type 0x09, "d\0") to a value beyond JS Date's range.
    new DataView(bytes.buffer, bytes.byteOffset).setBigInt64(7, 9_000_000_000_000_000n, true);
    expect(decodeDocument(bytes)).toEqual({ d: null });
  });

  it('reads a 16-byte binary of any subtype as a lower-case UUID', () => {
    const hex = '0123456789ABCDEF0123456789ABCDEF';
    for (const subtype of [0, 3, 4, 128]) {
      expect(mapBsonValue(Binary.createFromHexString(hex, subtype))).toBe('01234567-89ab-cdef-0123-456789abcdef');
    }
    expect(roundTrip({ _id: new UUID('550e8400-e29b-41d4-a716-446655440000') })).toEqual({
      _id: '550e8400-e29b-41d4-a716-446655440000',
    });
  });

  it('hands other binaries over as bytes, which the engine writes as base64', () => {
    const row = roundTrip({ b: new Binary(Uint8Array.from([0, 1, 2, 250, 251])) })!;
    expect(row.b).toBeInstanceOf(Uint8Array);
    expect(Array.from(row.b as Uint8Array)).toEqual([0, 1, 2, 250, 251]);
    expect(encodeCanonicalRow(row)).toBe('{"b":"AAEC+vs="}');
  });

  it('maps Decimal128 to its exact text and Long to an exact bigint', () => {
    const row = roundTrip({ d: Decimal128.fromString('2500.00'), l: Long.fromString('9007199254740993'), s: Long.fromNumber(7) });
    expect(row).toEqual({ d: '2500.00', l: 9007199254740993n, s: 7n });
    expect(encodeCanonicalRow(row!)).toBe('{"d":"2500.00","l":9007199254740993,"s":7}');
  });

  it('maps Int32 and Double to numbers, including non-finite doubles', () => {
    expect(roundTrip({ i: new Int32(-5), f: new Double(1.5), n: NaN })).toEqual({ i: -5, f: 1.5, n: NaN });
    expect(mapBsonValue(new Int32(3))).toBe(3);
    expect(mapBsonValue(new Double(2.25))).toBe(2.25);
    expect(mapBsonValue(Long.fromString('-9223372036854775808'))).toBe(-9223372036854775808n);
  });

  it('maps nested documents and arrays recursively', () => {
    const id = new ObjectId();
    const row = roundTrip({ a: { b: [1, { c: id, d: [new Date('2020-01-01T00:00:00Z')] }], e: null }, u: 'ünï 😀' });
    expect(row).toEqual({ a: { b: [1, { c: id.toHexString(), d: ['2020-01-01T00:00:00Z'] }], e: null }, u: 'ünï 😀' });
  });

  it('writes other BSON types in relaxed Extended JSON', () => {
    const row = roundTrip({
      ts: new Timestamp({ t: 1700000000, i: 3 }),
      re: new BSONRegExp('^a.b', 'imx'),
      min: new MinKey(),
      max: new MaxKey(),
      code: new Code('function () { return 1; }'),
    });
    expect(row).toEqual({
      ts: { $timestamp: { t: 1700000000, i: 3 } },
      re: { $regularExpression: { pattern: '^a.b', options: 'imx' } },
      min: { $minKey: 1 },
      max: { $maxKey: 1 },
      code: { $code: 'function () { return 1; }' },
    });
    expect(() => encodeCanonicalRow(row!)).not.toThrow();
  });

  it('maps a DBRef like the document it is stored as', () => {
    const id = new ObjectId();
    expect(roundTrip({ ref: new DBRef('users', id, 'other') })).toEqual({
      ref: { $ref: 'users', $id: id.toHexString(), $db: 'other' },
    });
  });

  it('keeps a __proto__ key as an ordinary field', () => {
    const bytes = BSON.serialize(JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as BSON.Document);
    const row = decodeDocument(bytes)!;
    expect(Object.keys(row)).toEqual(['__proto__', 'y']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(encodeCanonicalRow(row)).toBe('{"__proto__":{"x":1},"y":2}');
  });

  it('maps the deprecated undefined and symbol types to null and the symbol text', () => {
    expect(mapBsonValue(undefined)).toBeNull();
    expect(roundTrip({ sym: new BSONSymbol('s') })).toEqual({ sym: 's' });
  });

  it('returns undefined for bytes that are not a decodable document', () => {
    const bytes = BSON.serialize({ s: 'ab' });
    const invalidUtf8 = Uint8Array.from(bytes);
    invalidUtf8[invalidUtf8.length - 3] = 0xff; // the 'a' of the string value
    expect(decodeDocument(invalidUtf8)).toBeUndefined();
    expect(decodeDocument(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    expect(decodeDocument(bytes)).toEqual({ s: 'ab' });
  });

  it('formats 16 bytes as a UUID', () => {
    expect(uuidText(Uint8Array.from({ length: 16 }, (_, i) => i * 17))).toBe('00112233-4455-6677-8899-aabbccddeeff');
  });
});
