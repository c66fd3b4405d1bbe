import { type ResultStore, ResultStoreRefused, ResultStoreThrottled } from '../../ports/result-store.port';
import { storageError } from './result-sink-error';
import { MAX_RETRY_AFTER_MS, type Sleep, withRetries } from './retry';
import type { ResultText } from './result-text';

export interface UploadTuning {
  /** Part size of a multipart upload. */
  readonly partBytes: number;
  /**
   * A result up to this size is spooled whole and sent with one PutObject at the end; a larger one
   * becomes a multipart upload as soon as the spool passes it, its parts sent while the extraction
   * goes on. Defaults to `partBytes`.
   */
  readonly multipartThresholdBytes?: number;
  /**
   * A result whose stored (base64) text stays within this many bytes is kept in memory and sent with
   * one PutObject of that buffer: no spool file. Past it, the text moves to the spool file and
   * everything goes as for the spool. 0 or absent: always the spool file.
   */
  readonly inMemoryBytes?: number;
  /** Parts uploading at the same time; writing waits when this many are in flight. */
  readonly maxInFlight: number;
  readonly sleep: Sleep;
  readonly backoffMs?: readonly number[];
}

export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** The highest in-memory limit: at most the lowest multipart threshold, so a result in memory is always one PutObject. */
export const MAX_IN_MEMORY_RESULT_KIB = 8 * 1024;
/** The highest threshold: a PutObject takes at most 5 GiB, and the last appends may pass the threshold a little. */
export const MAX_MULTIPART_THRESHOLD_MIB = 4096;
/**
 * Two parts in flight keep the upload ahead of the extraction (object stores accept parts faster than
 * the engine produces them) while holding memory flat; four doubled the growth from 100k to 1M rows
 * with no gain in time.
 */
export const DEFAULT_MAX_PARTS_IN_FLIGHT = 2;

/**
 * Uploads a result's text (a spool file, or memory for a small one) while it grows: once the result is past the multipart threshold, each whole
 * part on disk is read back and sent, so the upload overlaps the extraction. Each part is read from
 * the file on every attempt, so a retry re-sends exactly the same bytes. A result up to the threshold
 * is one PutObject at the end.
 */
export class ResultUploader {
  readonly #store: ResultStore;
  readonly #key: string;
  readonly #spool: ResultText;
  readonly #tuning: UploadTuning;
  #uploadId: string | undefined;
  #nextStart = 0;
  #nextPart = 1;
  readonly #parts: { partNumber: number; etag: string }[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  /** Part-sized buffers reused across parts (stores without streaming), so a large result does not churn through garbage. */
  readonly #buffers: Buffer[] = [];
  #failure: { error: unknown } | undefined;
  /** Aborted by `abort()`: store calls in flight stop at once instead of waiting for their answer. */
  readonly #stop = new AbortController();

  constructor(store: ResultStore, key: string, spool: ResultText, tuning: UploadTuning) {
    this.#store = store;
    this.#key = key;
    this.#spool = spool;
    this.#tuning = tuning;
  }

  /** Call after each append: starts the parts that are complete; waits while too many are in flight. */
  async progress(): Promise<void> {
    this.#throwIfFailed();
    const { partBytes, maxInFlight } = this.#tuning;
    if (this.#uploadId === undefined && this.#spool.size < (this.#tuning.multipartThresholdBytes ?? partBytes)) return;
    while (this.#spool.size - this.#nextStart >= partBytes) {
      if (this.#spool.flushedSize < this.#nextStart + partBytes) await this.#spool.flush();
      this.#uploadId ??= await this.#retry((signal) => this.#store.createMultipart(this.#key, signal));
      this.#start(this.#nextStart, partBytes);
      while (this.#inFlight.size >= maxInFlight) await Promise.race(this.#inFlight);
      this.#throwIfFailed();
    }
  }

  /** Sends what is left and makes the object visible. */
  async finish(): Promise<void> {
    this.#throwIfFailed();
    await this.#spool.flush();
    const total = this.#spool.size;
    if (this.#uploadId === undefined) {
      const putFrom = this.#store.putObjectFrom?.bind(this.#store);
      if (this.#spool.inMemory) {
        const body = this.#spool.contents();
        await this.#retry((signal) => this.#store.putObject(this.#key, body, signal));
      } else if (putFrom) {
        const body = this.#spool.range(0, total);
        await this.#retry((signal) => putFrom(this.#key, body, signal));
      } else {
        const body = await this.#spool.read(0, total);
        await this.#retry((signal) => this.#store.putObject(this.#key, body, signal));
      }
      return;
    }
    if (total > this.#nextStart) this.#start(this.#nextStart, total - this.#nextStart);
    await Promise.all(this.#inFlight);
    this.#throwIfFailed();
    const uploadId = this.#uploadId;
    const parts = [...this.#parts].sort((a, b) => a.partNumber - b.partNumber);
    await this.#retry((signal) => this.#store.completeMultipart(this.#key, uploadId, parts, signal));
    this.#uploadId = undefined;
  }

  /**
   * Stops the calls in flight (a part stuck on a stalled link included) and waits for them to settle,
   * then discards the multipart upload. Never throws.
   */
  async abort(): Promise<void> {
    this.#failure ??= { error: new Error('upload aborted') };
    this.#stop.abort();
    await Promise.allSettled([...this.#inFlight]);
    const uploadId = this.#uploadId;
    this.#uploadId = undefined;
    if (uploadId === undefined) return;
    try {
      // A refusal is final: retrying it would only delay a cancel by the whole backoff.
      await withRetries(
        () => this.#store.abortMultipart(this.#key, uploadId).catch((error: unknown) => {
          if (!(error instanceof ResultStoreRefused)) throw error;
        }),
        this.#tuning.sleep,
        this.#tuning.backoffMs,
        honourRetryAfter,
      );
    } catch {
      // The bucket's lifecycle rule for incomplete uploads is the last resort; no part is visible meanwhile.
    }
  }

  #start(start: number, length: number): void {
    const partNumber = this.#nextPart++;
    this.#nextStart = start + length;
    const uploadId = this.#uploadId as string;
    const uploadFrom = this.#store.uploadPartFrom?.bind(this.#store);
    // Streamed from the spool when the store can take a stream: a part then costs a few small reads
    // instead of a part-sized buffer (two of them were 16 MiB of the Worker's peak memory).
    const buffer = uploadFrom ? undefined : (this.#buffers.pop() ?? Buffer.allocUnsafe(this.#tuning.partBytes));
    const task = this.#retry(async (signal) => {
      // Read from the spool on every attempt: a retry sends exactly the bytes on disk.
      if (uploadFrom) return uploadFrom(this.#key, uploadId, partNumber, this.#spool.range(start, length), signal);
      const body = await this.#spool.readInto(buffer as Buffer, start, length);
      return this.#store.uploadPart(this.#key, uploadId, partNumber, body, signal);
    }).then(
      (etag) => {
        this.#parts.push({ partNumber, etag });
      },
      (error: unknown) => {
        this.#failure ??= { error };
      },
    );
    const tracked = task.finally(() => {
      this.#inFlight.delete(tracked);
      if (buffer?.length === this.#tuning.partBytes) this.#buffers.push(buffer);
    });
    this.#inFlight.add(tracked);
  }

  /** A store call with its retries; its last failure becomes a `ResultSinkError` (throttled, refused, unavailable). */
  async #retry<T>(attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = this.#stop.signal;
    try {
      return await withRetries(() => attempt(signal), this.#tuning.sleep, this.#tuning.backoffMs, honourRetryAfter, signal);
    } catch (error) {
      throw storageError(error);
    }
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}

/** A throttled store's `Retry-After` (capped at `MAX_RETRY_AFTER_MS`) when it is longer than the planned backoff. */
export function honourRetryAfter(error: unknown, plannedMs: number): number {
  if (!(error instanceof ResultStoreThrottled) || error.retryAfterMs === undefined) return plannedMs;
  return Math.max(plannedMs, Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS));
}
