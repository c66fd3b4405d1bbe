import { mongo } from 'mongoose';

/**
 * Ids are stored as 16-byte BSON binaries of subtype 0x00, as the original service wrote them;
 * reads accept subtype 0x04 too, so documents written by other drivers still match.
 */
export function uuidToBinary(id: string, subtype = 0): mongo.Binary {
  return new mongo.Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), subtype);
}

/** A filter value matching the id under either subtype. */
export function idFilter(id: string): { $in: mongo.Binary[] } {
  return { $in: [uuidToBinary(id, 0), uuidToBinary(id, 4)] };
}

export function binaryToUuid(value: unknown): string {
  let bytes: Uint8Array | undefined;
  if (value instanceof mongo.Binary) bytes = value.buffer;
  else if (value instanceof Uint8Array) bytes = value;
  if (!bytes || bytes.length !== 16) return '';
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
