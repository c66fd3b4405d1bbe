/**
 * Cancellation for one operation: the host's signal combined with the engine's own deadline.
 * Aborts are reported as `timeout` or `canceled`, never as the reason object.
 */
import { EngineError, ErrorText } from '../errors';

// setTimeout (and so AbortSignal.timeout) fires at once for delays above 2^31-1 ms; 24.8 days is
// "no deadline" for every practical purpose.
const MAX_TIMER_MS = 2_147_483_647;

export class Deadline {
  readonly signal: AbortSignal;
  readonly #host: AbortSignal | undefined;
  readonly #timer: AbortSignal | undefined;
  readonly #waiters = new Set<() => void>();

  /** `extra` signals (the runner's fail-fast controller) abort the work but do not decide the category. */
  constructor(host: AbortSignal | undefined, timeoutMs: number | undefined, extra: readonly AbortSignal[] = []) {
    this.#host = host;
    this.#timer = timeoutMs === undefined ? undefined : AbortSignal.timeout(Math.min(timeoutMs, MAX_TIMER_MS));
    const signals = [host, this.#timer, ...extra].filter((s): s is AbortSignal => s !== undefined);
    this.signal = signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
    this.signal.addEventListener(
      'abort',
      () => {
        const waiters = [...this.#waiters];
        this.#waiters.clear();
        for (const waiter of waiters) waiter();
      },
      { once: true },
    );
  }

  /** Whether the host or the deadline (not a sibling failure) ended the work. */
  get expired(): boolean {
    return (this.#timer?.aborted ?? false) || (this.#host?.aborted ?? false);
  }

  /** timeout when our deadline passed or the host's own deadline did; canceled otherwise. */
  error(): EngineError {
    if (this.#timer?.aborted) return new EngineError('timeout', ErrorText.deadline);
    const reason: unknown = this.#host?.reason;
    if (reason instanceof DOMException && reason.name === 'TimeoutError') {
      return new EngineError('timeout', ErrorText.deadline);
    }
    return new EngineError('canceled', ErrorText.canceled);
  }

  throwIfAborted(): void {
    if (this.signal.aborted) throw this.error();
  }

  /**
   * Settles with `work`, or rejects with this deadline's error as soon as the signal aborts, for
   * ports that may not honour a signal. The abandoned promise's rejection is absorbed; a value it
   * still produces goes to `onLate` (so a late cursor or writer can be released). A rejection that
   * is not an Error arrives wrapped in one.
   */
  race<T>(work: Promise<T>, onLate?: (value: T) => void): Promise<T> {
    const abandon = (): void => {
      work.then((value) => onLate?.(value), () => undefined);
    };
    if (this.signal.aborted) {
      abandon();
      return Promise.reject(this.error());
    }
    // One abort listener per deadline and a set of waiters, rather than a listener per call: the
    // runner races every cursor read, a million times for a million rows.
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        abandon();
        reject(this.error());
      };
      this.#waiters.add(onAbort);
      work.then(
        (value) => {
          if (this.#waiters.delete(onAbort)) resolve(value);
        },
        (error: unknown) => {
          if (this.#waiters.delete(onAbort)) reject(error instanceof Error ? error : new Error('non-error rejection', { cause: error }));
        },
      );
    });
  }
}
