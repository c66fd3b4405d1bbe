/**
 * A ResultSink that does what the Worker does to a result, minus the
 * upload: HMAC-SHA256 over the plaintext, AES-256-GCM with a random 12-byte nonce (output
 * `nonce || ciphertext || tag`), streaming standard base64 carrying 0-2 bytes between chunks, and
 * the base64 text written to a file stream (by default /dev/null). Keys are random per run.
 */
import { createCipheriv, createHmac, randomBytes, type CipherGCM, type Hmac } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { ResultReference, ResultSink, ResultWriter, TenantContext } from '@fetcher/engine';

export interface CryptoSinkReport {
  plaintextBytes: number;
  base64Bytes: number;
  hmacHex: string;
}

export class CryptoResultSink implements ResultSink {
  readonly reports: CryptoSinkReport[] = [];
  readonly #path: string;

  constructor(path = '/dev/null') {
    this.#path = path;
  }

  openResultStream(_tenant: TenantContext, _options: { requestId?: string }): Promise<ResultWriter> {
    return Promise.resolve(new CryptoResultWriter(this.#path, (report) => this.reports.push(report)));
  }
}

class CryptoResultWriter implements ResultWriter {
  readonly #hmac: Hmac = createHmac('sha256', randomBytes(32));
  readonly #cipher: CipherGCM;
  readonly #out: WriteStream;
  readonly #onClose: (report: CryptoSinkReport) => void;
  readonly #carry = Buffer.alloc(3);
  #carryBytes = 0;
  #plaintextBytes = 0;
  #base64Bytes = 0;

  constructor(path: string, onClose: (report: CryptoSinkReport) => void) {
    const nonce = randomBytes(12);
    this.#cipher = createCipheriv('aes-256-gcm', randomBytes(32), nonce);
    this.#out = createWriteStream(path, { highWaterMark: 1 << 20 });
    this.#onClose = onClose;
    this.#emit(nonce);
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.#plaintextBytes += chunk.length;
    this.#hmac.update(chunk);
    if (!this.#emit(this.#cipher.update(chunk))) await new Promise<void>((resolve) => this.#out.once('drain', resolve));
  }

  async close(): Promise<ResultReference> {
    this.#emit(this.#cipher.final());
    this.#emit(this.#cipher.getAuthTag());
    if (this.#carryBytes > 0) this.#text(this.#carry.subarray(0, this.#carryBytes).toString('base64'));
    await new Promise<void>((resolve, reject) => this.#out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    const report = { plaintextBytes: this.#plaintextBytes, base64Bytes: this.#base64Bytes, hmacHex: this.#hmac.digest('hex') };
    this.#onClose(report);
    return { path: 'discarded', format: 'json', rowCount: 0, sizeBytes: this.#plaintextBytes, completedAt: new Date().toISOString() };
  }

  abort(): Promise<void> {
    this.#out.destroy();
    return Promise.resolve();
  }

  /** Base64 of `bytes` after the carried 0-2 bytes; keeps the new remainder. Returns the stream's back-pressure flag. */
  #emit(bytes: Buffer): boolean {
    let start = 0;
    let text = '';
    if (this.#carryBytes > 0) {
      while (this.#carryBytes < 3 && start < bytes.length) this.#carry[this.#carryBytes++] = bytes[start++];
      if (this.#carryBytes < 3) return true;
      text = this.#carry.toString('base64');
      this.#carryBytes = 0;
    }
    const end = bytes.length - ((bytes.length - start) % 3);
    if (end > start) text += bytes.toString('base64', start, end);
    for (let i = end; i < bytes.length; i++) this.#carry[this.#carryBytes++] = bytes[i];
    return text.length === 0 ? true : this.#text(text);
  }

  #text(text: string): boolean {
    this.#base64Bytes += text.length;
    return this.#out.write(text, 'latin1');
  }
}
