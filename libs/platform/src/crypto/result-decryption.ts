// The reading side of the Worker's result format (base64 text of nonce || AES-256-GCM ciphertext || tag,
// with an HMAC-SHA256 of the plaintext under the external sub-key), shared by the CLI and the Manager.
import { createDecipheriv, createHmac, timingSafeEqual, type DecipherGCM, type Hmac } from 'node:crypto';
import { Transform, type TransformCallback, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A stored result that failed a check: not base64, too short, the AES-GCM tag refused (wrong key or
 * altered bytes). The CLI maps it to its integrity exit status, the Manager to its integrity error.
 */
export class ResultIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResultIntegrityError';
  }
}

const integrityError = (message: string): ResultIntegrityError => new ResultIntegrityError(message);

/** Constant-time comparison of two lower- or upper-case hex HMACs. */
export function hmacMatches(expectedHex: string, actualHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(actualHex, 'hex');
  return expected.length === actual.length && expected.length > 0 && timingSafeEqual(expected, actual);
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;
const WHITESPACE = /\s+/g;

/**
 * Decodes standard base64 text as it streams, carrying the 0-3 characters of an incomplete quantum
 * between chunks. Whitespace is ignored (a result saved by hand may end with a newline); any other
 * character outside the alphabet fails, because `Buffer.from(…, 'base64')` would skip it silently.
 */
export class Base64DecodeStream extends Transform {
  #carry = '';
  #ended = false;

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    const fresh = (typeof chunk === 'string' ? chunk : chunk.toString('latin1')).replace(WHITESPACE, '');
    // Padding only ever ends the text: after a padded quantum, nothing but whitespace may follow.
    if (this.#ended && fresh.length > 0) return done(integrityError('the result is not valid base64 text'));
    const text = this.#carry + fresh;
    if (!BASE64_TEXT.test(text)) return done(integrityError('the result is not valid base64 text'));
    const whole = text.length - (text.length % 4);
    this.#carry = text.slice(whole);
    if (text.slice(0, whole).includes('=')) this.#ended = true;
    if (whole > 0) this.push(Buffer.from(text.slice(0, whole), 'base64'));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#carry.length > 0) return done(integrityError('the result is not valid base64 text (truncated)'));
    done();
  }
}

/**
 * Opens `nonce(12) || ciphertext || tag(16)` with AES-256-GCM as the bytes arrive, and computes the
 * HMAC-SHA256 of the plaintext on the way. The last 16 bytes seen so far are held back, since only the
 * end of the stream tells which bytes are the tag. Plaintext is emitted before the tag is checked:
 * the consumer MUST treat it as untrusted until the stream finishes without an error.
 */
export class GcmDecryptStream extends Transform {
  readonly #key: Buffer;
  readonly #hmac: Hmac;
  #head = Buffer.alloc(0);
  #decipher?: DecipherGCM;
  #tail = Buffer.alloc(0);
  #plaintextBytes = 0;
  #digest?: string;

  constructor(storageKey: Buffer, hmacKey: Buffer) {
    super();
    this.#key = storageKey;
    this.#hmac = createHmac('sha256', hmacKey);
  }

  /** Lower-case hex HMAC of the plaintext; available once the stream has finished. */
  get hmacHex(): string {
    if (this.#digest === undefined) throw new Error('the HMAC is known only after the stream ends');
    return this.#digest;
  }

  get plaintextBytes(): number {
    return this.#plaintextBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let data = chunk;
    if (!this.#decipher) {
      this.#head = Buffer.concat([this.#head, data]);
      if (this.#head.length < NONCE_BYTES) return done();
      this.#decipher = createDecipheriv('aes-256-gcm', this.#key, this.#head.subarray(0, NONCE_BYTES));
      data = this.#head.subarray(NONCE_BYTES);
      this.#head = Buffer.alloc(0);
    }
    const held = Buffer.concat([this.#tail, data]);
    const releasable = held.length - TAG_BYTES;
    if (releasable <= 0) {
      this.#tail = held;
      return done();
    }
    this.#tail = Buffer.from(held.subarray(releasable));
    this.#emit(this.#decipher.update(held.subarray(0, releasable)));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.#decipher || this.#tail.length < TAG_BYTES) {
      return done(integrityError('the result is too short to be an encrypted result'));
    }
    this.#decipher.setAuthTag(this.#tail);
    let last: Buffer;
    try {
      last = this.#decipher.final();
    } catch {
      // Only the tag check can fail here; OpenSSL's text would add nothing for the user.
      return done(integrityError('the result failed authentication: wrong key, or the stored bytes were altered'));
    }
    this.#emit(last);
    this.#digest = this.#hmac.digest('hex');
    done();
  }

  #emit(plaintext: Buffer): void {
    if (plaintext.length === 0) return;
    this.#hmac.update(plaintext);
    this.#plaintextBytes += plaintext.length;
    this.push(plaintext);
  }
}

export interface DecryptedResult {
  /** Lower-case hex HMAC-SHA256 of the plaintext under the external key. */
  readonly hmac: string;
  readonly plaintextBytes: number;
}

/**
 * Streams a stored result (base64 text) through decoding and decryption into `sink`. Resolves only
 * when the GCM tag was verified; until then, whatever reached `sink` is unauthenticated.
 */
export async function decryptResult(source: Readable, sink: Writable, keys: { storage: Buffer; externalHmac: Buffer }): Promise<DecryptedResult> {
  const decrypt = new GcmDecryptStream(keys.storage, keys.externalHmac);
  await pipeline(source, new Base64DecodeStream(), decrypt, sink);
  return { hmac: decrypt.hmacHex, plaintextBytes: decrypt.plaintextBytes };
}
