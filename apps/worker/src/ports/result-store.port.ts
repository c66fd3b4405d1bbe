import type { Readable } from 'node:stream';

/**
 * Bytes that can be read again from the start, once per attempt, without being held in memory
 * (a range of the spool file). `open()` returns a fresh stream of exactly `length` bytes.
 */
export interface ReplayableBody {
  readonly length: number;
  open(): Readable;
}

/**
 * S3-compatible object storage for results. Nothing becomes visible under `key` until `putObject`
 * or `completeMultipart` succeeds; `abortMultipart` discards every uploaded part.
 *
 * `signal`: once it is aborted, a call in flight rejects without waiting for the store's answer (a
 * canceled job must not wait for a part stuck on a stalled link). `abortMultipart` takes none: it is
 * what runs after the abort.
 */
export interface ResultStore {
  putObject(key: string, body: Buffer, signal?: AbortSignal): Promise<void>;
  createMultipart(key: string, signal?: AbortSignal): Promise<string>;
  /** Resolves to the part's ETag. */
  uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer, signal?: AbortSignal): Promise<string>;
  completeMultipart(key: string, uploadId: string, parts: readonly { partNumber: number; etag: string }[], signal?: AbortSignal): Promise<void>;
  /**
   * Throws `ResultStoreRefused` when the store refuses the abort for good (it does not know the
   * upload, or does not implement aborting): sending it again cannot help, and the parts of an
   * unfinished upload never become an object either way.
   */
  abortMultipart(key: string, uploadId: string): Promise<void>;
  /**
   * Streaming forms of `putObject` and `uploadPart`. A store that has them is sent each body straight
   * from the spool file, so no part is ever held in memory whole; a store without them gets Buffers.
   */
  putObjectFrom?(key: string, body: ReplayableBody, signal?: AbortSignal): Promise<void>;
  uploadPartFrom?(key: string, uploadId: string, partNumber: number, body: ReplayableBody, signal?: AbortSignal): Promise<string>;
}
export const RESULT_STORE = Symbol('ResultStore');

/** The store answered that the request itself is refused (a client fault): no retry can change that. */
export class ResultStoreRefused extends Error {
  constructor(options?: { cause?: unknown }) {
    super('object storage refused the request', options);
    this.name = 'ResultStoreRefused';
  }
}

/** The store asked us to slow down (HTTP 503 Slow Down, 429), naming how long to wait when it did (`Retry-After`). */
export class ResultStoreThrottled extends Error {
  constructor(
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super('object storage throttled the request', options);
    this.name = 'ResultStoreThrottled';
  }
}
