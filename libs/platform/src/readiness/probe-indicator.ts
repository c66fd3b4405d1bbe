import { type HealthIndicatorFunction, type HealthIndicatorResult, type HealthIndicatorService } from '@nestjs/terminus';
import { type CheckResult, type ReadinessProbe } from './probe';
import { type CheckObserver, isPassing, runProbe } from './run-probe';

/** Where an indicator keeps our check in Terminus' details (`status` is Terminus' own key). */
export const CHECK_DETAIL = 'check';

/** What one of our indicators puts in Terminus' details under the probe's name. */
export type ProbeIndicatorResult = HealthIndicatorResult<string, 'up' | 'down', { readonly [CHECK_DETAIL]: CheckResult }>;

/**
 * One Terminus health indicator per dependency, made from a `ReadinessProbe`. Terminus knows only
 * `up` and `down`, so our five statuses travel as the `check` detail and the mapper writes them back:
 * `up`, `skipped` and `n/a` are Terminus' `up`; `down` and `degraded` its `down`. The probe runs
 * under its own timeout and never throws (Terminus would rethrow anything but its own error).
 */
export function probeIndicator(
  indicators: HealthIndicatorService,
  probe: ReadinessProbe,
  observe?: CheckObserver,
  signal?: AbortSignal,
): HealthIndicatorFunction {
  return async (): Promise<ProbeIndicatorResult> => {
    const result = await runProbe(probe, signal);
    observe?.(probe.name, result, result.latency_ms ?? 0);
    const session = indicators.check(probe.name);
    return isPassing(result) ? session.up({ [CHECK_DETAIL]: result }) : session.down({ [CHECK_DETAIL]: result });
  };
}
