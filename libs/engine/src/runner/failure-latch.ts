/**
 * Fail fast: the first error is kept, and it aborts the shared signal so every
 * other step stops. The writer's own error (size limit, sink failure) outranks a step's error,
 * because a step that fails after the writer gave up only reports the abort it saw.
 */
import type { EngineError } from '../errors';

export class FailureLatch {
  readonly #controller = new AbortController();
  #stepError: EngineError | undefined;
  #writerError: EngineError | undefined;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get error(): EngineError | undefined {
    return this.#writerError ?? this.#stepError;
  }

  stepFailed(error: EngineError): void {
    this.#stepError ??= error;
    this.#controller.abort(error);
  }

  writerFailed(error: EngineError): void {
    this.#writerError ??= error;
    this.#controller.abort(error);
  }
}
