/**
 * Store mode: the host's ResultWriter. Its failures become unavailable "failed to persist
 * extraction result"; its messages (bucket names, endpoints) never cross the boundary.
 */
import { EngineError, ErrorText } from '../errors';
import type { ResultReference } from '../models';
import type { ResultWriter } from '../ports';
import type { Deadline } from '../support/deadline';
import type { ResultTarget } from './result-target';

export class SinkTarget implements ResultTarget {
  readonly #writer: ResultWriter;
  readonly #deadline: Deadline;

  constructor(writer: ResultWriter, deadline: Deadline) {
    this.#writer = writer;
    this.#deadline = deadline;
  }

  /** A checked writer, or unavailable: the sink handed back something that cannot take bytes. */
  static check(value: unknown): ResultWriter {
    const w = value as Partial<ResultWriter> | null;
    if (typeof w !== 'object' || w === null || typeof w.write !== 'function' || typeof w.close !== 'function' || typeof w.abort !== 'function') {
      throw new EngineError('unavailable', ErrorText.persistFailed);
    }
    return w as ResultWriter;
  }

  async write(bytes: Uint8Array): Promise<void> {
    try {
      // Raced: a sink stuck in back-pressure must not keep a canceled run alive.
      await this.#deadline.race(Promise.resolve(this.#writer.write(bytes)));
    } catch (error) {
      if (this.#deadline.signal.aborted) throw this.#deadline.error();
      throw new EngineError('unavailable', ErrorText.persistFailed, error);
    }
  }

  async close(): Promise<ResultReference> {
    try {
      return await this.#deadline.race(Promise.resolve(this.#writer.close()));
    } catch (error) {
      if (this.#deadline.signal.aborted) throw this.#deadline.error();
      throw new EngineError('unavailable', ErrorText.persistFailed, error);
    }
  }

  /** Best-effort cleanup; its outcome changes nothing. */
  async abort(reason: EngineError): Promise<void> {
    try {
      await this.#writer.abort(reason);
    } catch {
      // The run already failed with `reason`; a failing cleanup adds nothing a host can act on.
    }
  }
}
