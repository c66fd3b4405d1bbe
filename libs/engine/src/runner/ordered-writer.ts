/**
 * The single writer: drains the step slots strictly by ordinal and writes `{`,
 * the fragments, then `}`. It owns the running byte count (size limit), the SHA-256 over exactly
 * the written bytes, and the row counts.
 */
import { createHash, type Hash } from 'node:crypto';
import { EngineError, ErrorText } from '../errors';
import type { Deadline } from '../support/deadline';
import type { ChunkSlot } from './chunk-slot';
import type { RunnableStep } from './plan-reader';
import type { ResultTarget } from './result-target';

export class OrderedWriter {
  readonly #target: ResultTarget;
  readonly #maxBytes: number;
  readonly #deadline: Deadline;
  readonly #hash: Hash = createHash('sha256');
  readonly #rowCounts: Record<string, number> = {};
  #bytes = 0;
  #rows = 0;

  constructor(target: ResultTarget, maxBytes: number, deadline: Deadline) {
    this.#target = target;
    this.#maxBytes = maxBytes;
    this.#deadline = deadline;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get rows(): number {
    return this.#rows;
  }

  get rowCounts(): Readonly<Record<string, number>> {
    return { ...this.#rowCounts };
  }

  digest(): string {
    return this.#hash.digest('hex');
  }

  /** Rejects with the writer's own error; an abort seen while waiting is reported as the abort. */
  async run(steps: readonly RunnableStep[], slots: readonly ChunkSlot[]): Promise<void> {
    const signal = this.#deadline.signal;
    for (const step of steps) this.#rowCounts[step.configName] = 0;
    await this.#write(new Uint8Array([0x7b])); // {
    for (let i = 0; i < steps.length; i++) {
      for (;;) {
        const chunk = await slots[i].take(signal);
        if (chunk === null) break;
        await this.#write(chunk.bytes);
        this.#rows += chunk.rows;
        this.#rowCounts[steps[i].configName] += chunk.rows;
      }
    }
    await this.#write(new Uint8Array([0x7d])); // }
  }

  async #write(bytes: Uint8Array): Promise<void> {
    // Checked before writing: the target never receives a byte beyond the limit.
    if (this.#bytes + bytes.length > this.#maxBytes) {
      throw new EngineError('limit_exceeded', ErrorText.resultTooLarge);
    }
    this.#hash.update(bytes);
    this.#bytes += bytes.length;
    await this.#target.write(bytes);
  }
}
