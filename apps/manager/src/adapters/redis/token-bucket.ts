/** The test-connection bucket: 10 tokens, one back every 6 s (10 per minute). */
export const BUCKET = Object.freeze({ capacity: 10, refillIntervalMs: 6_000, idleTtlMs: 120_000 });

/** Retry-After: whole seconds until the next token, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1_000));
}
