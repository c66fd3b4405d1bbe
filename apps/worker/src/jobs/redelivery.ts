import { ENVELOPE_HEADERS } from '@fetcher/platform';

/**
 * How the Worker retries a delivery whose infrastructure failed before the job could be settled
 * (the job store did not answer, say): it waits, republishes the same signed message with
 * `x-retry-count` one higher, and acks the original. The header is not covered by the signature,
 * so a tampered count can only change how many of these bounded retries a genuine message gets.
 */
export interface RetryPolicy {
  /** Retries after the first delivery; 0 turns retrying off. */
  readonly maxRetries: number;
  /** The wait before the first retry; it doubles with each retry, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}
export const RETRY_POLICY = Symbol('RetryPolicy');

/**
 * The delivery's `x-retry-count`: a non-negative integer (a number, or a decimal string), 0 when the
 * header is absent, and `undefined` when it holds anything else (such a message is not retried).
 */
export function retryCountOf(headers: Readonly<Record<string, unknown>>): number | undefined {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === ENVELOPE_HEADERS.retryCount);
  if (name === undefined) return 0;
  const value = headers[name];
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  return undefined;
}

/** The wait before retry number `retryCount + 1`. */
export function retryDelayMs(retryCount: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retryCount, 30));
}

/** The headers of the republished copy: the same ones, with the retry count one higher. */
export function nextRetryHeaders(headers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const count = retryCountOf(headers) ?? 0;
  const next: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== ENVELOPE_HEADERS.retryCount) next[name] = value;
  next[ENVELOPE_HEADERS.retryCount] = count + 1;
  return next;
}

export function retriesExhaustedError(deliveries: number): string {
  return `process failed: infrastructure unavailable after ${deliveries} delivery attempts`;
}
