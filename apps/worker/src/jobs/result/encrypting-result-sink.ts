import { type CipherGCM, createCipheriv, createHmac, type Hmac, randomBytes } from 'node:crypto';
import type { EngineError, ResultReference, ResultSink, ResultWriter, TenantContext } from '@fetcher/engine';
import { type Telemetry, traced } from '@fetcher/platform';
import { WorkerCodes, WorkerError } from '../../errors/worker-error';
import type { ResultStore } from '../../ports/result-store.port';
import { BusySpan } from '../busy-span';
import { Base64Encoder } from './base64-encoder';
import { ResultUploader, type UploadTuning } from './result-uploader';
import { ResultText } from './result-text';

export interface ResultTarget {
  /** The physical object key (prefix included). */
  readonly objectKey: string;
  /** The key as reported in `result_path` and the event (no prefix). */
  readonly resultPath: string;
  readonly spoolPath: string;
}

export interface ResultKeys {
  /** HMAC-SHA256 over the plaintext. */
  readonly externalHmac: Buffer;
  /** AES-256-GCM. */
  readonly storage: Buffer;
}

/** What the sink learned about the last result it closed. */
export interface SealedResult {
  readonly hmac: string;
  readonly plaintextBytes: number;
  readonly storedBytes: number;
}

/**
 * The Worker's result sink: plaintext -> incremental HMAC (external key) and AES-256-GCM (storage
 * key, random nonce, stored as nonce || ciphertext || tag) -> streaming base64 -> memory, or the
 * spool file once past `inMemoryBytes` -> S3, uploaded in parts while the extraction runs. Only
 * ciphertext touches the disk; the spool file is deleted whether the result is stored or not. A
 * small result never touches the disk: one PutObject of the buffer. One sink serves one job.
 */
export class EncryptingResultSink implements ResultSink {
  #sealed: SealedResult | undefined;
  #writer: EncryptingResultWriter | undefined;

  constructor(
    private readonly store: ResultStore,
    private readonly target: ResultTarget,
    private readonly keys: ResultKeys,
    private readonly tuning: UploadTuning,
    /** Spans for encryption (`result.encrypt`, summed) and the upload's end (`result.upload`); null when off. */
    private readonly telemetry: Telemetry | null = null,
  ) {}

  get sealed(): SealedResult | undefined {
    return this.#sealed;
  }

  async openResultStream(_tenant: TenantContext, _options: { requestId?: string }): Promise<ResultWriter> {
    if (this.#writer) throw new Error('a result sink serves one extraction');
    if (this.keys.storage.length !== 32) throw new WorkerError(WorkerCodes.storageKeyMissing);
    const spool = await ResultText.open(this.target.spoolPath, this.tuning.inMemoryBytes ?? 0);
    this.#writer = new EncryptingResultWriter(this.store, this.target, this.keys, this.tuning, spool, (sealed) => (this.#sealed = sealed), this.telemetry);
    return this.#writer;
  }

  /** Deletes the spool file and discards any upload; for the host's `finally`. */
  async dispose(): Promise<void> {
    await this.#writer?.abort();
  }
}

class EncryptingResultWriter implements ResultWriter {
  readonly #hmac: Hmac;
  readonly #cipher: CipherGCM;
  readonly #base64 = new Base64Encoder();
  readonly #uploader: ResultUploader;
  readonly #encrypt: BusySpan;
  #plaintextBytes = 0;
  #done = false;
  /** The nonce's write, started by the constructor. */
  readonly #pending: Promise<void>;

  constructor(
    store: ResultStore,
    private readonly target: ResultTarget,
    keys: ResultKeys,
    tuning: UploadTuning,
    private readonly spool: ResultText,
    private readonly onSealed: (sealed: SealedResult) => void,
    private readonly telemetry: Telemetry | null,
  ) {
    this.#encrypt = new BusySpan(telemetry, 'result.encrypt');
    try {
      this.#hmac = createHmac('sha256', keys.externalHmac);
    } catch (error) {
      throw new WorkerError(WorkerCodes.hmacFailed, { cause: error });
    }
    const nonce = randomBytes(12);
    try {
      this.#cipher = createCipheriv('aes-256-gcm', keys.storage, nonce);
    } catch (error) {
      throw new WorkerError(WorkerCodes.cipherInit, { cause: error });
    }
    this.#uploader = new ResultUploader(store, target.objectKey, spool, tuning);
    this.#pending = this.#append(nonce);
    this.#pending.catch(() => undefined); // observed by write/close/abort; never an unhandled rejection
  }

  async write(chunk: Uint8Array): Promise<void> {
    await this.#pending;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#plaintextBytes += bytes.length;
    const sealed = this.#encrypt.time(() => {
      this.#hmac.update(bytes);
      try {
        return this.#cipher.update(bytes);
      } catch (error) {
        throw new WorkerError(WorkerCodes.encryptionFailed, { cause: error });
      }
    });
    await this.#append(sealed);
  }

  async close(): Promise<ResultReference> {
    await this.#pending;
    try {
      let tail: Buffer;
      try {
        tail = Buffer.concat([this.#cipher.final(), this.#cipher.getAuthTag()]);
      } catch (error) {
        throw new WorkerError(WorkerCodes.encryptionFailed, { cause: error });
      }
      await this.#append(tail);
      await this.spool.append(this.#base64.finish());
      this.#encrypt.end();
      await traced(this.telemetry, 'result.upload', {}, () => this.#uploader.finish());
      this.#done = true;
      const hmac = this.#hmac.digest('hex');
      this.onSealed({ hmac, plaintextBytes: this.#plaintextBytes, storedBytes: this.spool.size });
      return {
        path: this.target.resultPath,
        format: 'json',
        rowCount: 0, // the engine fills in the rows it counted
        sizeBytes: this.#plaintextBytes,
        integrity: { algorithm: 'HMAC-SHA256', signature: hmac },
        protection: { encrypted: true, mode: 'adapter-managed', appliedBy: 'adapter' },
        completedAt: new Date().toISOString(),
      };
    } finally {
      if (!this.#done) await this.#uploader.abort();
      await this.spool.remove();
    }
  }

  async abort(_reason?: EngineError): Promise<void> {
    if (!this.#done) {
      this.#done = true;
      await this.#pending.catch(() => undefined);
      await this.#uploader.abort();
    }
    await this.spool.remove();
  }

  async #append(ciphertext: Buffer): Promise<void> {
    await this.spool.append(this.#base64.push(ciphertext));
    await this.#uploader.progress();
  }
}
