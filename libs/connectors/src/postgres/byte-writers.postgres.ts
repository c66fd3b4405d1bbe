/**
 * Byte-level writers for the COPY encoder's hot loop: JSON fragments written straight into a
 * buffer at an offset, returning the new offset. The caller has ensured the capacity.
 */

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const Q = 0x22; // "
const BACKSLASH = 0x5c;

/** `YYYY-MM-DD HH:MM:SS[.f]` (`len` bytes) -> `"YYYY-MM-DDTHH:MM:SS[.f]Z"`; the server trims the fraction's zeros. */
export function writeTimestamp(buf: Buffer, q: number, len: number, out: Buffer, at: number): number {
  let o = at;
  out[o++] = Q;
  copyBytes(buf, q, len, out, o);
  out[o + 10] = 0x54; // T
  o += len;
  out[o++] = 0x5a; // Z
  out[o++] = Q;
  return o;
}

/** UTF-8 bytes as a JSON string, escaped as JSON.stringify does (controls as \u00xx, lower-case hex). */
export function writeEscaped(buf: Buffer, start: number, end: number, out: Buffer, at: number): number {
  let o = at;
  out[o++] = Q;
  for (let k = start; k < end; k++) {
    const c = buf[k];
    if (c >= 0x20 && c !== Q && c !== BACKSLASH) {
      out[o++] = c;
      continue;
    }
    out[o++] = BACKSLASH;
    switch (c) {
      case Q:
      case BACKSLASH:
        out[o++] = c;
        break;
      case 0x08:
        out[o++] = 0x62; // b
        break;
      case 0x0c:
        out[o++] = 0x66; // f
        break;
      case 0x0a:
        out[o++] = 0x6e; // n
        break;
      case 0x0d:
        out[o++] = 0x72; // r
        break;
      case 0x09:
        out[o++] = 0x74; // t
        break;
      default:
        out[o++] = 0x75;
        out[o++] = 0x30;
        out[o++] = 0x30;
        out[o++] = HEX[c >> 4];
        out[o++] = HEX[c & 15];
    }
  }
  out[o++] = Q;
  return o;
}

/** A safe integer in decimal. */
export function writeInt(out: Buffer, at: number, value: number): number {
  let o = at;
  let n = value;
  if (n < 0) {
    out[o++] = 0x2d;
    n = -n;
  }
  const digits = digitCount(n);
  let p = o + digits - 1;
  while (n >= 10) {
    const next = Math.floor(n / 10);
    out[p--] = 0x30 + (n - next * 10);
    n = next;
  }
  out[p] = 0x30 + n;
  return o + digits;
}

export function readInt32(buf: Buffer, q: number): number {
  return (buf[q] << 24) | (buf[q + 1] << 16) | (buf[q + 2] << 8) | buf[q + 3];
}

/** Short values are copied byte by byte: Buffer#copy costs more per call than it saves below ~64 bytes. */
export function copyBytes(from: Buffer, start: number, length: number, to: Buffer, at: number): void {
  if (length > 64) {
    from.copy(to, at, start, start + length);
    return;
  }
  for (let k = 0; k < length; k++) to[at + k] = from[start + k];
}

export function isDateShape(buf: Buffer, q: number): boolean {
  return buf[q + 4] === 0x2d && buf[q + 7] === 0x2d;
}

function digitCount(n: number): number {
  if (n < 10) return 1;
  if (n < 100) return 2;
  if (n < 1e3) return 3;
  if (n < 1e4) return 4;
  if (n < 1e5) return 5;
  if (n < 1e6) return 6;
  if (n < 1e7) return 7;
  if (n < 1e8) return 8;
  if (n < 1e9) return 9;
  if (n < 1e10) return 10;
  return String(n).length;
}
