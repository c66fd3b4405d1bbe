/** Waits `ms`; injected so unit tests never sleep. */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Upload attempts and the waits between them: three tries, 1 s then 4 s apart. */
export const UPLOAD_BACKOFF_MS: readonly number[] = [1_000, 4_000];

/** The longest `Retry-After` honoured; a store asking for more gets this. Bounds a throttled job's time to fail. */
export const MAX_RETRY_AFTER_MS = 20_000;

/** How long to wait after a failure: the planned backoff, or longer when the store asked for it. */
export type RetryWait = (error: unknown, plannedMs: number) => number;

/**
 * Runs `attempt` until it succeeds, waiting `wait(error, backoff[i])` after failure i (by default
 * `backoff[i]`); rethrows the last error. Once `signal` is aborted it tries no more and stops
 * waiting: the failure in hand is rethrown at once.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  sleep: Sleep,
  backoff: readonly number[] = UPLOAD_BACKOFF_MS,
  wait: RetryWait = (_e, ms) => ms,
  signal?: AbortSignal,
): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= backoff.length || signal?.aborted) throw error;
      await abortableSleep(sleep, wait(error, backoff[i]), signal);
      if (signal?.aborted) throw error;
    }
  }
}

/** `sleep(ms)`, ended early by `signal`; its listener is removed either way (one per retry, never piling up). */
async function abortableSleep(sleep: Sleep, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
