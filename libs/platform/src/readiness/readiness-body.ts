import { type HealthCheckResult } from '@nestjs/terminus';
import { type DeploymentMode } from './platform-options';
import { type CheckResult } from './probe';
import { CHECK_DETAIL } from './probe-indicator';

/** An HTTP answer, independent of the HTTP adapter. */
export interface SystemAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/** The top-level fields every readiness body carries besides the checks. */
export interface ReadinessMeta {
  readonly version: string;
  readonly deploymentMode: DeploymentMode;
}

/**
 * The one mapper from Terminus' result to our documented readiness body. Terminus' own body
 * (`{status: ok|error, info, error, details}`) is not ours: we keep `healthy`/`unhealthy`, five check
 * statuses, the probes' order, `version` and `deployment_mode`. `names` gives the order: Terminus lists
 * passing checks before failing ones.
 */
export function readinessAnswer(result: HealthCheckResult, names: readonly string[], meta: ReadinessMeta): SystemAnswer {
  if (result.status === 'shutting_down') return drainAnswer(meta);
  const checks: Record<string, CheckResult> = {};
  for (const name of names) {
    const check = (result.details[name] as Record<string, unknown> | undefined)?.[CHECK_DETAIL] as CheckResult | undefined;
    if (check) checks[name] = check;
  }
  const healthy = result.status === 'ok';
  return {
    status: healthy ? 200 : 503,
    body: { status: healthy ? 'healthy' : 'unhealthy', checks, version: meta.version, deployment_mode: meta.deploymentMode },
  };
}

/** While draining no dependency is asked: the process is leaving rotation whatever they say. */
export function drainAnswer(meta: ReadinessMeta): SystemAnswer {
  return {
    status: 503,
    body: {
      status: 'unhealthy',
      checks: { draining: { status: 'down', reason: 'graceful drain in progress' } },
      version: meta.version,
      deployment_mode: meta.deploymentMode,
    },
  };
}
