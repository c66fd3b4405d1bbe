import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted by their UTF-8 bytes at every depth and no whitespace, so equal values
 * always give equal text (request hashes, signed bodies). Arrays keep their order; numbers use
 * JavaScript's shortest round-trip form; `undefined` members are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  const text = write(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return text;
}

function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonicalJson: numbers must be finite');
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: bigint has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return write(withToJson.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const key of Object.keys(value).sort(byUtf8)) {
    const member = write((value as Record<string, unknown>)[key]);
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${members.join(',')}}`;
}

// String comparison in JavaScript orders UTF-16 code units, which differs from UTF-8 byte order
// for characters outside the Basic Multilingual Plane.
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Lower-case hex SHA-256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
