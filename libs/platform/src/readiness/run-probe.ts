import { type CheckResult, type ProbeResult, type ReadinessProbe } from './probe';
import { errorText, sanitizeCheckError } from './sanitize';

/** Called once per finished check, e.g. to feed the readiness metrics. */
export type CheckObserver = (name: string, result: CheckResult, durationMs: number) => void;

/**
 * Runs one probe with its own timeout. Never throws: a timeout or an exception becomes `down`. A
 * probe that ignores its signal keeps running in the background, but its answer is no longer awaited.
 */
export async function runProbe(probe: ReadinessProbe, parent?: AbortSignal): Promise<CheckResult> {
  const started = performance.now();
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('check timeout'));
      resolve({ status: 'down', error: `check timeout: ${probe.name} did not answer within ${probe.timeoutMs} ms` });
    }, probe.timeoutMs);
  });
  let result: ProbeResult;
  try {
    result = await Promise.race([Promise.resolve().then(() => probe.check(controller.signal)), timedOut]);
  } catch (error) {
    result = { status: 'down', error: errorText(error) };
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  }
  return normalise(result, Math.max(0, Math.round(performance.now() - started)));
}

/**
 * `up`, `skipped` and `n/a` pass (the startup self-probe, and Terminus' `up`); `down` and `degraded`
 * do not, and make the process not ready.
 */
export function isPassing(result: CheckResult): boolean {
  return result.status === 'up' || result.status === 'skipped' || result.status === 'n/a';
}

// Keep only the documented keys, fill the mandatory text, sanitise what a driver may have said.
function normalise(result: ProbeResult, latencyMs: number): CheckResult {
  const out: { -readonly [K in keyof CheckResult]: CheckResult[K] } = { status: result.status };
  const measured = result.status === 'up' || result.status === 'down' || result.status === 'degraded';
  if (measured) out.latency_ms = latencyMs;
  if (result.tls !== undefined) out.tls = result.tls;
  if (result.status === 'down' || result.status === 'degraded') out.error = sanitizeCheckError(result.error ?? result.status);
  else if (result.error !== undefined) out.error = sanitizeCheckError(result.error);
  if (result.status === 'skipped' || result.status === 'n/a') out.reason = sanitizeCheckError(result.reason ?? 'not applicable');
  else if (result.reason !== undefined) out.reason = sanitizeCheckError(result.reason);
  if (result.breaker_state !== undefined) out.breaker_state = result.breaker_state;
  return out;
}
