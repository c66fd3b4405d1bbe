import { Binary } from 'mongodb';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The canonical 36-character form, any letter case: the only id text the codec writes. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

/**
 * Job and connection ids are stored as 16-byte binaries of subtype 0x00, as the original service
 * wrote them. Anything but a canonical UUID is refused: hex-decoding it would store a truncated or
 * empty binary under a wrong id.
 */
export function uuidToBinary(id: string, subtype: number = Binary.SUBTYPE_DEFAULT): Binary {
  if (!isUuid(id)) throw new Error('not a UUID');
  return new Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), subtype);
}

/** Reads accept subtype 0x00 and 0x04 (documents written by other drivers), so a filter matches either. */
export function idFilter(id: string): { $in: Binary[] } {
  return { $in: [uuidToBinary(id, Binary.SUBTYPE_DEFAULT), uuidToBinary(id, Binary.SUBTYPE_UUID)] };
}

/**
 * A stored id as a lower-case UUID: a 16-byte binary of any subtype, raw 16 bytes (what a cast
 * document holds), or a UUID string. Anything else throws: a wrong id is worse than a failed read.
 */
export function binaryToUuid(value: unknown): string {
  let bytes: Uint8Array | undefined;
  if (value instanceof Binary) bytes = value.length() === 16 ? value.buffer.subarray(0, 16) : undefined;
  else if (value instanceof Uint8Array) bytes = value.length === 16 ? value : undefined;
  else if (isUuid(value)) return value.toLowerCase();
  if (!bytes) throw new Error('id is not a UUID');
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
