import { MalformedMessageError } from './malformed-message.error';
import { HEADER_SIZE, MAX_MESSAGE_SIZE } from './op-code';

/** Cuts a TCP byte stream into whole wire-protocol frames (length-prefixed, little-endian). */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** Adds received bytes and returns every frame now complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const frames: Buffer[] = [];
    let buffer = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    while (buffer.length >= 4) {
      const length = buffer.readInt32LE(0);
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) {
        throw new MalformedMessageError(`invalid message length ${length}`);
      }
      if (buffer.length < length) break;
      frames.push(buffer.subarray(0, length));
      buffer = buffer.subarray(length);
    }
    this.pending = buffer.length > 0 ? [buffer] : [];
    this.pendingBytes = buffer.length;
    return frames;
  }
}
