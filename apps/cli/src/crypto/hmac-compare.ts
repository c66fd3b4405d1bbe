import { timingSafeEqual } from 'node:crypto';

/** Constant-time comparison of two lower- or upper-case hex HMACs. */
export function hmacMatches(expectedHex: string, actualHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(actualHex, 'hex');
  return expected.length === actual.length && expected.length > 0 && timingSafeEqual(expected, actual);
}
