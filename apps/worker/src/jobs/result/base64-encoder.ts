/**
 * Streaming standard base64 with padding: each chunk is encoded up to a multiple of three bytes and
 * the 0-2 leftover bytes wait for the next chunk, so the concatenated output equals the base64 of
 * the whole input.
 */
export class Base64Encoder {
  readonly #carry = Buffer.alloc(3);
  #carried = 0;

  /** The ASCII text for `bytes` (may be empty). */
  push(bytes: Buffer): Buffer {
    let start = 0;
    let head: Buffer | undefined;
    if (this.#carried > 0) {
      while (this.#carried < 3 && start < bytes.length) this.#carry[this.#carried++] = bytes[start++];
      if (this.#carried < 3) return Buffer.alloc(0);
      head = Buffer.from(this.#carry.toString('base64'), 'latin1');
      this.#carried = 0;
    }
    const end = bytes.length - ((bytes.length - start) % 3);
    for (let i = end; i < bytes.length; i++) this.#carry[this.#carried++] = bytes[i];
    const body = end > start ? Buffer.from(bytes.toString('base64', start, end), 'latin1') : undefined;
    if (head && body) return Buffer.concat([head, body]);
    return head ?? body ?? Buffer.alloc(0);
  }

  /** The padded tail. */
  finish(): Buffer {
    const tail = this.#carried > 0 ? Buffer.from(this.#carry.subarray(0, this.#carried).toString('base64'), 'latin1') : Buffer.alloc(0);
    this.#carried = 0;
    return tail;
  }
}
