/** AMQP reply codes that another immediate attempt cannot fix (access refused, not found, not allowed, precondition). */
const PERMANENT_CODES = new Set([403, 404, 405, 406]);
const PERMANENT_WAIT_SEC = 30;
const BASE_SEC = 1;
const CAP_SEC = 60;
/** A floor, so a jitter of zero never turns into a busy loop against a broker that is down. */
const MIN_SEC = 0.1;

/**
 * Seconds to wait before reconnection attempt number `failures` (1 = after the first failure):
 * exponential backoff with full jitter (uniform in [0, min(60, 2^(failures-1)))), or 30 s after an
 * error the broker will keep giving.
 */
export function reconnectDelaySec(failures: number, error: unknown, random: () => number = Math.random): number {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && PERMANENT_CODES.has(code)) return PERMANENT_WAIT_SEC;
  const ceiling = Math.min(CAP_SEC, BASE_SEC * 2 ** Math.max(0, failures - 1));
  return Math.max(MIN_SEC, random() * ceiling);
}
