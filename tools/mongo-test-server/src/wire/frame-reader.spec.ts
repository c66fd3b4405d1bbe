import { FrameReader } from './frame-reader';
import { MalformedMessageError } from './malformed-message.error';

function frameOf(length: number, fill: number): Buffer {
  const frame = Buffer.alloc(length, fill);
  frame.writeInt32LE(length, 0);
  return frame;
}

describe(FrameReader.name, () => {
  it('returns nothing until a frame is complete, then the whole frame', () => {
    const sut = new FrameReader();
    const frame = frameOf(20, 7);
    expect(sut.push(frame.subarray(0, 3))).toEqual([]);
    expect(sut.push(frame.subarray(3, 19))).toEqual([]);
    expect(sut.push(frame.subarray(19))).toEqual([frame]);
  });

  it('splits several frames that arrive in one chunk, keeping the remainder', () => {
    const sut = new FrameReader();
    const [a, b, c] = [frameOf(16, 1), frameOf(24, 2), frameOf(18, 3)];
    expect(sut.push(Buffer.concat([a, b, c.subarray(0, 5)]))).toEqual([a, b]);
    expect(sut.push(c.subarray(5))).toEqual([c]);
  });

  it.each([[0], [15], [-1], [48_000_001]])('rejects a declared length of %d', (length) => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(length, 0);
    expect(() => new FrameReader().push(header)).toThrow(MalformedMessageError);
  });
});
