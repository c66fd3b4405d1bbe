import { randomFillSync } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// An incoming id is trusted only if it is short and plain: it ends up in every log line and message.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** The request id to use: the caller's `X-Request-Id` when acceptable, else a fresh UUIDv7. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_REQUEST_ID.test(value) ? value : requestUuidV7();
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const RANDOM_BYTES_PER_ID = 10;
// Random bytes for 256 ids at a time: one getrandom call instead of one per request.
const pool = Buffer.allocUnsafe(RANDOM_BYTES_PER_ID * 256);
let poolOffset = pool.length;

// The "<time>-<time>-7" prefix of the last millisecond an id was made in: under load, many ids share it.
let prefixMs = -1;
let prefix = '';

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Generated for every request
 * without an acceptable id, so it is built straight from a pooled random buffer; ids of the same
 * millisecond are not ordered among themselves, which a request id does not need.
 */
export function requestUuidV7(now: number = Date.now()): string {
  if (poolOffset + RANDOM_BYTES_PER_ID > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += RANDOM_BYTES_PER_ID;
  if (now !== prefixMs) {
    const time = Math.floor(now).toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8)}-7`;
    prefixMs = now;
  }
  const p = pool;
  return (
    prefix + HEX[p[r] & 0x0f][1] + HEX[p[r + 1]] + '-' + HEX[(p[r + 2] & 0x3f) | 0x80] + HEX[p[r + 3]] + '-' +
    HEX[p[r + 4]] + HEX[p[r + 5]] + HEX[p[r + 6]] + HEX[p[r + 7]] + HEX[p[r + 8]] + HEX[p[r + 9]]
  );
}
