import { Binary } from 'mongodb';
import { binaryToUuid, idFilter, isUuid, uuidToBinary } from './uuid-binary';

const ID = '0190f3c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f';
const BYTES = Buffer.from(ID.replace(/-/g, ''), 'hex');

describe('the UUID codec of stored ids', () => {
  describe('uuidToBinary', () => {
    it('writes 16 bytes of subtype 0x00 by default, as the original service did', () => {
      const binary = uuidToBinary(ID);
      expect(binary.sub_type).toBe(0);
      expect(Buffer.from(binary.buffer)).toEqual(BYTES);
    });

    it('writes subtype 0x04 when asked', () => expect(uuidToBinary(ID, Binary.SUBTYPE_UUID).sub_type).toBe(4));

    it('accepts upper case', () => expect(Buffer.from(uuidToBinary(ID.toUpperCase()).buffer)).toEqual(BYTES));

    it.each([
      ['an empty string', ''],
      ['32 bare hex digits', ID.replace(/-/g, '')],
      ['a UUID in braces', `{${ID}}`],
      ['a non-hex digit', ID.replace(/^0/, 'g')],
      ['a short id', ID.slice(0, -1)],
      ['a long id', `${ID}0`],
      ['an ObjectId', '65f0c0ffee0123456789abcd'],
    ])('refuses %s instead of storing a truncated binary', (_case, value) => {
      expect(() => uuidToBinary(value)).toThrow('not a UUID');
    });
  });

  describe('idFilter', () => {
    it('matches the id under subtype 0x00 and 0x04', () => {
      const filter = idFilter(ID);
      expect(filter.$in.map((b) => b.sub_type)).toEqual([0, 4]);
      expect(filter.$in.map((b) => Buffer.from(b.buffer))).toEqual([BYTES, BYTES]);
    });

    it('refuses a non-UUID', () => expect(() => idFilter('nope')).toThrow('not a UUID'));
  });

  describe('binaryToUuid', () => {
    it('reads a binary of subtype 0x00 or 0x04', () => {
      expect(binaryToUuid(new Binary(BYTES, 0))).toBe(ID);
      expect(binaryToUuid(new Binary(BYTES, 4))).toBe(ID);
    });

    it('reads raw 16 bytes (a Buffer or a Uint8Array, as a cast document may hold)', () => {
      expect(binaryToUuid(Buffer.from(BYTES))).toBe(ID);
      expect(binaryToUuid(new Uint8Array(BYTES))).toBe(ID);
    });

    it('reads a string id in lower case, as documents written with string ids hold', () => {
      expect(binaryToUuid(ID.toUpperCase())).toBe(ID);
    });

    it.each([
      ['a 15-byte binary', new Binary(BYTES.subarray(0, 15), 0)],
      ['a 17-byte binary', new Binary(Buffer.concat([BYTES, Buffer.from([0])]), 0)],
      ['15 raw bytes', new Uint8Array(15)],
      ['a string that is not a UUID', 'abc'],
      ['undefined', undefined],
      ['null', null],
      ['a number', 42],
      ['an object', { id: ID }],
    ])('refuses %s rather than inventing an id', (_case, value) => {
      expect(() => binaryToUuid(value)).toThrow('id is not a UUID');
    });

    it('round-trips through uuidToBinary', () => expect(binaryToUuid(uuidToBinary(ID))).toBe(ID));
  });

  it('isUuid says which strings the codec takes', () => {
    expect(isUuid(ID)).toBe(true);
    expect(isUuid(ID.toUpperCase())).toBe(true);
    expect(isUuid(ID.replace(/-/g, ''))).toBe(false);
    expect(isUuid(42)).toBe(false);
  });
});
