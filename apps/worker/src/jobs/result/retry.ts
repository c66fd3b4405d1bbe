/** Waits `ms`; injected so unit tests never sleep. */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Upload attempts and the waits between them: three tries, 1 s then 4 s apart. */
export const UPLOAD_BACKOFF_MS: readonly number[] = [1_000, 4_000];

/** Runs `attempt` until it succeeds, waiting `backoff[i]` after failure i; rethrows the last error. */
export async function withRetries<T>(attempt: () => Promise<T>, sleep: Sleep, backoff: readonly number[] = UPLOAD_BACKOFF_MS): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= backoff.length) throw error;
      await sleep(backoff[i]);
    }
  }
}
