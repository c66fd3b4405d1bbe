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
 * `backoff[i]`); rethrows the last error.
 */
export async function withRetries<T>(attempt: () => Promise<T>, sleep: Sleep, backoff: readonly number[] = UPLOAD_BACKOFF_MS, wait: RetryWait = (_e, ms) => ms): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= backoff.length) throw error;
      await sleep(wait(error, backoff[i]));
    }
  }
}
