/** One open result stream of MemoryResultSink. Knobs are read from the sink at each call. */
import { createHash } from 'node:crypto';
import { concat } from '../canonical/fragment-encoder';
import type { EngineError } from '../errors';
import type { ResultReference } from '../models';
import type { ResultWriter } from '../ports';
import type { MemoryResultSink } from './memory-result-sink';
import { attempt, throwKnob } from './harness-support';

export class MemoryResultWriter implements ResultWriter {
  readonly #sink: MemoryResultSink;
  readonly #tenantId: string;
  #parts: Uint8Array[] = [];
  #writes = 0;
  #state: 'open' | 'closed' | 'aborted' = 'open';
  abortReason: EngineError | undefined;

  constructor(sink: MemoryResultSink, tenantId: string) {
    this.#sink = sink;
    this.#tenantId = tenantId;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.#writes++ === 0 && this.#sink.writeGate) await this.#sink.writeGate;
    throwKnob(this.#sink.writeErr, () => new Error('memory sink write failed'));
    if (this.#state !== 'open') throw new Error('memory result writer is not open');
    this.#sink.writeSizes.push(chunk.length);
    this.#parts.push(chunk.slice());
  }

  close(): Promise<ResultReference> {
    return attempt(() => this.#close());
  }

  #close(): ResultReference {
    throwKnob(this.#sink.closeErr, () => new Error('memory sink close failed'));
    if (this.#state !== 'open') throw new Error('memory result writer is not open');
    this.#state = 'closed';
    const bytes = concat(this.#parts);
    this.#parts = [];
    const digest = createHash('sha256').update(bytes).digest('hex');
    const path = this.#sink.store(this.#tenantId, digest, bytes);
    const reference: Record<string, unknown> = { path, format: 'json', rowCount: 0, completedAt: new Date(0).toISOString() };
    if (!this.#sink.omitSizeBytes) reference.sizeBytes = bytes.length;
    if (!this.#sink.omitIntegrity) reference.integrity = { algorithm: 'SHA-256', digest };
    if (this.#sink.protectionResult !== undefined) reference.protection = { ...this.#sink.protectionResult };
    return reference as unknown as ResultReference;
  }

  /** Never throws; after close it changes nothing. */
  abort(reason: EngineError): Promise<void> {
    this.#sink.abortCount++;
    if (this.#state === 'open') {
      this.#state = 'aborted';
      this.abortReason = reason;
      this.#parts = [];
    }
    return Promise.resolve();
  }
}
