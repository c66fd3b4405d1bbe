/**
 * ResultSink in memory. Stored documents live under `memory://<tenantId>/<sha256hex>-<seq>`
 * with SHA-256 integrity. Knobs make each stage fail or stall; counters tell tests what happened.
 */
import type { ResultProtection, TenantContext } from '../models';
import type { ResultSink, ResultWriter } from '../ports';
import { MemoryResultWriter } from './memory-result-writer';
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
      return new MemoryResultWriter(this, tenant.tenantId);
    });
  }

  /** The stored document, or undefined. */
  get(path: string): Uint8Array | undefined {
    return this.#stored.get(path);
  }

  paths(): string[] {
    return [...this.#stored.keys()];
  }

  /** Called by MemoryResultWriter.close(); returns the new path. */
  store(tenantId: string, digest: string, bytes: Uint8Array): string {
    this.storedCount++;
    const path = `memory://${tenantId}/${digest}-${this.storedCount}`;
    this.#stored.set(path, bytes);
    return path;
  }
}
