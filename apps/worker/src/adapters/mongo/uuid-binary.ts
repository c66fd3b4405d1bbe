import { Binary } from 'mongodb';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Job and connection ids are stored as 16-byte binaries of subtype 0 (as the original service did). */
export function uuidToBinary(id: string, subtype: number = Binary.SUBTYPE_DEFAULT): Binary {
  if (!UUID_RE.test(id)) throw new Error('not a UUID');
  return new Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), subtype);
}

/** Reads accept subtype 0 and 4, so a filter matches either. */
export function uuidFilter(id: string): { $in: Binary[] } {
  return { $in: [uuidToBinary(id, Binary.SUBTYPE_DEFAULT), uuidToBinary(id, Binary.SUBTYPE_UUID)] };
}

export function binaryToUuid(value: unknown): string {
  if (value instanceof Binary && value.length() === 16) {
    const hex = Buffer.from(value.buffer).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  if (typeof value === 'string') return value.toLowerCase();
  throw new Error('id is not a UUID binary');
}
