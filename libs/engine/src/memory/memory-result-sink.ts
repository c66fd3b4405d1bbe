/**
 * ResultSink in memory. Stored documents live under `memory://<tenantId>/<sha256hex>-<seq>`
 * with SHA-256 integrity. Knobs make each stage fail or stall; counters tell tests what happened.
 * Knobs are read at each call, so a test may change them while a stream is open.
 */
import { createHash } from 'node:crypto';
import { concat } from '../canonical/fragment-encoder';
import type { EngineError } from '../errors';
import type { ResultProtection, ResultReference, TenantContext } from '../models';
import type { ResultSink, ResultWriter } from '../ports';
import { attempt, throwKnob, type Knob } from './harness-support';

export class MemoryResultSink implements ResultSink {
  openErr: Knob = undefined;
  writeErr: Knob = undefined;
  closeErr: Knob = undefined;
  /** When set, each writer's first write waits for it: a sink that applies back-pressure. */
  writeGate: Promise<unknown> | undefined = undefined;
  /** Reported as the reference's protection (the engine checks `appliedBy`). */
  protectionResult: ResultProtection | Record<string, unknown> | undefined = undefined;
  omitIntegrity = false;
  omitSizeBytes = false;

  openCount = 0;
  storedCount = 0;
  abortCount = 0;
  /** Size of every chunk written, across writers, in order. */
  readonly writeSizes: number[] = [];
  /** The requestIds writers were opened with. */
  readonly requestIds: (string | undefined)[] = [];
  readonly #stored = new Map<string, Uint8Array>();

  openResultStream(tenant: TenantContext, options: { requestId?: string }): Promise<ResultWriter> {
    return attempt(() => {
      this.openCount++;
      this.requestIds.push(options.requestId);
      throwKnob(this.openErr, () => new Error('memory sink open failed'));
      return new MemoryResultWriter({
        beforeWrite: async (first) => {
          if (first && this.writeGate) await this.writeGate;
          throwKnob(this.writeErr, () => new Error('memory sink write failed'));
        },
        written: (size) => void this.writeSizes.push(size),
        beforeClose: () => throwKnob(this.closeErr, () => new Error('memory sink close failed')),
        store: (bytes) => this.#store(tenant.tenantId, bytes),
        aborted: () => void this.abortCount++,
      });
    });
  }

  /** The stored document, or undefined. */
  get(path: string): Uint8Array | undefined {
    return this.#stored.get(path);
  }

  paths(): string[] {
    return [...this.#stored.keys()];
  }

  #store(tenantId: string, bytes: Uint8Array): ResultReference {
    this.storedCount++;
    const digest = createHash('sha256').update(bytes).digest('hex');
    const path = `memory://${tenantId}/${digest}-${this.storedCount}`;
    this.#stored.set(path, bytes);
    const reference: Record<string, unknown> = { path, format: 'json', rowCount: 0, completedAt: new Date(0).toISOString() };
    if (!this.omitSizeBytes) reference.sizeBytes = bytes.length;
    if (!this.omitIntegrity) reference.integrity = { algorithm: 'SHA-256', digest };
    if (this.protectionResult !== undefined) reference.protection = { ...this.protectionResult };
    return reference as unknown as ResultReference;
  }
}

/** What a writer asks its sink for: the knobs and counters, behind five calls. */
interface WriterHooks {
  beforeWrite(first: boolean): Promise<void>;
  written(size: number): void;
  beforeClose(): void;
  store(bytes: Uint8Array): ResultReference;
  aborted(): void;
}

/** One open result stream of MemoryResultSink. */
export class MemoryResultWriter implements ResultWriter {
  readonly #hooks: WriterHooks;
  #parts: Uint8Array[] = [];
  #writes = 0;
  #state: 'open' | 'closed' | 'aborted' = 'open';
  abortReason: EngineError | undefined;

  constructor(hooks: WriterHooks) {
    this.#hooks = hooks;
  }

  async write(chunk: Uint8Array): Promise<void> {
    await this.#hooks.beforeWrite(this.#writes++ === 0);
    if (this.#state !== 'open') throw new Error('memory result writer is not open');
    this.#hooks.written(chunk.length);
    this.#parts.push(chunk.slice());
  }

  close(): Promise<ResultReference> {
    return attempt(() => {
      this.#hooks.beforeClose();
      if (this.#state !== 'open') throw new Error('memory result writer is not open');
      this.#state = 'closed';
      const bytes = concat(this.#parts);
      this.#parts = [];
      return this.#hooks.store(bytes);
    });
  }

  /** Never throws; after close it changes nothing. */
  abort(reason: EngineError): Promise<void> {
    this.#hooks.aborted();
    if (this.#state === 'open') {
      this.#state = 'aborted';
      this.abortReason = reason;
      this.#parts = [];
    }
    return Promise.resolve();
  }
}
