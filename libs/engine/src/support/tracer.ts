/**
 * Spans around operations, and the last line of defence of the boundary: whatever escapes an
 * operation is an EngineError with a fixed text, never a raw TypeError or a driver's message.
 */
import { EngineError, ErrorText } from '../errors';
import type { Observability, Span } from '../ports';

type Attributes = Readonly<Record<string, string | number | boolean>>;

const NO_SPAN: Span = { end: () => undefined };

export class Tracer {
  readonly #observability: Observability | undefined;

  constructor(observability: Observability | undefined) {
    this.#observability = observability;
  }

  /** Runs `work` in a span. Observability failures never fail an operation. */
  async run<T>(name: string, attributes: Attributes, work: () => Promise<T>, passThrough?: (error: unknown) => boolean): Promise<T> {
    const span = this.#start(name, attributes);
    try {
      const value = await work();
      end(span, undefined);
      return value;
    } catch (error) {
      const engineError = toEngineError(error);
      end(span, engineError);
      if (passThrough?.(error)) throw error;
      throw engineError;
    }
  }

  #start(name: string, attributes: Attributes): Span {
    if (!this.#observability) return NO_SPAN;
    try {
      const span = this.#observability.startSpan(name, attributes);
      return span && typeof span.end === 'function' ? span : NO_SPAN;
    } catch {
      return NO_SPAN;
    }
  }
}

export function toEngineError(error: unknown): EngineError {
  return error instanceof EngineError ? error : new EngineError('internal', ErrorText.unexpected, error);
}

function end(span: Span, error: EngineError | undefined): void {
  try {
    span.end(error);
  } catch {
    // A broken exporter must not turn a success into a failure.
  }
}
