export type ProbeStatus = 'up' | 'down' | 'degraded' | 'skipped' | 'n/a';
export type BreakerState = 'closed' | 'open' | 'half-open';

/** What a probe found. `down` and `degraded` carry `error`; `skipped` and `n/a` carry `reason`. */
export interface ProbeResult {
  readonly status: ProbeStatus;
  readonly error?: string;
  readonly reason?: string;
  readonly tls?: boolean;
  readonly breaker_state?: BreakerState;
}

/** One entry of the readiness body: the probe's result plus its measured latency. */
export interface CheckResult extends ProbeResult {
  readonly latency_ms?: number;
}

/**
 * One dependency check. `check` MUST honour `signal` where its client allows it; the runner cuts it
 * at `timeoutMs` either way and reports `down` with "check timeout". Throwing is reported as `down`
 * with the sanitised message.
 */
export interface ReadinessProbe {
  readonly name: string;
  readonly timeoutMs: number;
  check(signal: AbortSignal): Promise<ProbeResult>;
}

/** Each app provides its probes as an array under this token, anywhere in its module graph. */
export const PROBES = Symbol('ReadinessProbe[]');

/** The answer for one tenant: its probes, or an HTTP answer when it cannot be checked at all. */
export type TenantProbeResolution =
  | { readonly probes: readonly ReadinessProbe[] }
  | { readonly status: number; readonly body: Readonly<Record<string, unknown>> };

/**
 * Multi-tenant deployments provide this under `TENANT_READINESS`; without it `/readyz/tenant/:id`
 * answers 400 "multi-tenant mode is disabled".
 */
export interface TenantReadiness {
  resolve(tenantId: string, signal: AbortSignal): Promise<TenantProbeResolution>;
}
export const TENANT_READINESS = Symbol('TenantReadiness');
