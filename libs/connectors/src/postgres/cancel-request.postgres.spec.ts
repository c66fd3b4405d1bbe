import { cancelRequestBytes } from './cancel-request.postgres';

describe(cancelRequestBytes.name, () => {
  it('lays out length, request code, process id and secret key as big-endian int32s', () => {
    const bytes = cancelRequestBytes(4242, -123456789);
    expect(bytes).toHaveLength(16);
    expect(bytes.readInt32BE(0)).toBe(16);
    expect(bytes.readInt32BE(4)).toBe(80877102);
    expect(bytes.readInt32BE(8)).toBe(4242);
    expect(bytes.readInt32BE(12)).toBe(-123456789);
  });

  it('accepts a secret key given as an unsigned 32-bit number', () => {
    expect(cancelRequestBytes(1, 0xfffffffe).readInt32BE(12)).toBe(-2);
  });
});
