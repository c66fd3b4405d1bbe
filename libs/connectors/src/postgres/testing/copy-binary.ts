/**
 * Test helpers: PostgreSQL binary COPY data and protocol messages built by hand, the way the
 * server writes them, so unit tests can drive the encoder and the COPY query without a server.
 */
export const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** One field's bytes; null is SQL NULL. */
export type Field = Buffer | null;

export const field = {
  bool: (v: boolean): Buffer => Buffer.from([v ? 1 : 0]),
  int2: (v: number): Buffer => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return b;
  },
  int4: (v: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return b;
  },
  oid: (v: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    return b;
  },
  int8: (v: bigint): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    return b;
  },
  float8: (v: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    return b;
  },
  text: (v: string): Buffer => Buffer.from(v, 'utf8'),
  bytes: (v: readonly number[]): Buffer => Buffer.from(v),
};

export function copyHeader(extension: Buffer = Buffer.alloc(0)): Buffer {
  const fixed = Buffer.alloc(8);
  fixed.writeUInt32BE(0, 0);
  fixed.writeUInt32BE(extension.length, 4);
  return Buffer.concat([COPY_SIGNATURE, fixed, extension]);
}

export function copyTuple(fields: readonly Field[]): Buffer {
  const parts: Buffer[] = [];
  const count = Buffer.alloc(2);
  count.writeInt16BE(fields.length);
  parts.push(count);
  for (const value of fields) {
    const length = Buffer.alloc(4);
    length.writeInt32BE(value === null ? -1 : value.length);
    parts.push(length);
    if (value !== null) parts.push(value);
  }
  return Buffer.concat(parts);
}

export const COPY_TRAILER = Buffer.from([0xff, 0xff]);

/** A whole binary COPY stream. */
export function copyStream(rows: readonly (readonly Field[])[]): Buffer {
  return Buffer.concat([copyHeader(), ...rows.map(copyTuple), COPY_TRAILER]);
}

/** A backend protocol message: code, int32 length (counting itself), body. */
export function message(code: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(code, 0, 'latin1');
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
