import type { BoundValue } from '../sql/where';

/** Bound filter values as pg parameters: bigints as digit strings, bytes as Buffers. */
export function toPgParam(bound: BoundValue): unknown {
  const { value } = bound;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}
