/**
 * Streaming standard base64 with padding: each chunk is encoded up to a multiple of three bytes and
 * the 0-2 leftover bytes wait for the next chunk, so the concatenated output equals the base64 of
 * the whole input. Output is ASCII text, which the spool writes as it is.
 */
export class Base64Encoder {
  readonly #carry = Buffer.alloc(3);
  #carried = 0;

  /** The text for `bytes` (may be empty). */
  push(bytes: Buffer): string {
    let start = 0;
    let head = '';
    if (this.#carried > 0) {
      while (this.#carried < 3 && start < bytes.length) this.#carry[this.#carried++] = bytes[start++];
      if (this.#carried < 3) return '';
      head = this.#carry.toString('base64');
      this.#carried = 0;
    }
    const end = bytes.length - ((bytes.length - start) % 3);
    for (let i = end; i < bytes.length; i++) this.#carry[this.#carried++] = bytes[i];
    return end > start ? head + bytes.toString('base64', start, end) : head;
  }

  /** The padded tail. */
  finish(): string {
    const tail = this.#carried > 0 ? this.#carry.subarray(0, this.#carried).toString('base64') : '';
    this.#carried = 0;
    return tail;
  }
}
