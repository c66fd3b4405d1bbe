import { EngineError, ErrorText } from '@fetcher/engine';

/**
 * The rejection for work stopped by a signal: `timeout` when the signal's reason is a timeout
 * (AbortSignal.timeout, the engine's deadline), `canceled` otherwise. The engine re-maps aborts
 * itself; this keeps the category right for hosts that call a connector directly.
 */
export function abortError(signal: AbortSignal): EngineError {
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError') {
    return new EngineError('timeout', ErrorText.deadline);
  }
  return new EngineError('canceled', ErrorText.canceled);
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/**
 * Settles with `work`, or rejects with abortError as soon as `signal` aborts (then `onAbort` runs,
 * to stop the driver's side of the work). The abandoned promise's rejection is absorbed.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, onAbort?: () => void): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    onAbort?.();
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => {
      work.catch(() => undefined);
      onAbort?.();
      reject(abortError(signal));
    };
    signal.addEventListener('abort', abort, { once: true });
    const settled = (): void => signal.removeEventListener('abort', abort);
    work.then(settled, settled);
    work.then(resolve, reject);
  });
}

/** A signal that aborts with `signal` or after `ms` (as a TimeoutError), whichever comes first. */
export function withTimeout(signal: AbortSignal, ms: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(ms)]);
}

/** A statement that ran past the connector's own budget (30 s discovery, 60 s / 120 s per table). */
export function statementTimeout(cause?: unknown): EngineError {
  return new EngineError('timeout', 'datasource query timed out', cause);
}
