import { type MetricsRegistry } from '../metrics/metrics-registry';
import { type Telemetry } from '../telemetry/telemetry';
import { type ReadinessProbe } from './probe';

export type DeploymentMode = 'local' | 'saas' | 'byoc';

export interface PlatformOptions {
  readonly service: 'manager' | 'worker';
  /** Shown by `/version` (`VERSION`, default `0.0.0`). */
  readonly version: string;
  /** Shown as `version` in the readiness body (`OTEL_RESOURCE_SERVICE_VERSION`); `unknown` when unset. */
  readonly readyzVersion?: string;
  readonly deploymentMode: DeploymentMode;
  /** Kept here so `runGracefully` and operators' docs agree; see `resolveDrainDelaySec`. */
  readonly drainDelaySec: number;
  /** Probes given directly; otherwise the `PROBES` provider is looked up anywhere in the app. */
  readonly probes?: readonly ReadinessProbe[];
  /** A registry created before the app (so adapters built outside Nest can use it). */
  readonly metricsRegistry?: MetricsRegistry;
  /** From `startTelemetry`; when enabled, every HTTP request gets a server span. */
  readonly telemetry?: Telemetry;
  /** Overall budget of the startup self-probe; 15 s when unset. */
  readonly selfProbeBudgetMs?: number;
}

export const PLATFORM_OPTIONS = Symbol('PlatformOptions');
