import type { Tracer } from '@opentelemetry/api';
import { ConfigError } from '../config/config-error';
import type { MetricsRegistry } from '../metrics/metrics-registry';

/** The tenant-manager client's settings, filled from the service's configuration. */
export interface TenantManagerClientOptions {
  /** Base URL (`MULTI_TENANT_URL`): https, or http with `allowInsecureHttp`. No credentials in it. */
  readonly url: string;
  /** Sent as `X-API-Key` on every request (`MULTI_TENANT_SERVICE_API_KEY`). */
  readonly apiKey: string;
  /** Limit for a whole call, body included (`MULTI_TENANT_TIMEOUT`). Default 30 s. */
  readonly timeoutMs?: number;
  /** How long a tenant config is reused (`MULTI_TENANT_CACHE_TTL_SEC`). Default 120 s. */
  readonly cacheTtlMs?: number;
  /** Consecutive failures that open the breaker; 0 or less means 5 (the breaker is always on). */
  readonly breakerThreshold?: number;
  /** How long the breaker stays open after the last failure; 0 or less means 30 s. */
  readonly breakerTimeoutMs?: number;
  /** Allows an `http://` URL (`MULTI_TENANT_ALLOW_INSECURE_HTTP`): local trials and tests only. */
  readonly allowInsecureHttp?: boolean;
  /** Response bodies are read up to this size; a larger one fails as `bad_response`. Default 10 MiB. */
  readonly maxResponseBytes?: number;
  /** Names the breaker and labels metrics; the Manager runs more than one client. Default `tenant-manager`. */
  readonly name?: string;
  /** Records `tenant_manager_requests_total` and `tenant_manager_request_duration_seconds` when given. */
  readonly metrics?: MetricsRegistry;
  /** Default: the global tracer provider's, a no-op unless telemetry is on. */
  readonly tracer?: Tracer;
  readonly now?: () => number;
}

export interface ResolvedTenantManagerOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  readonly cacheTtlMs: number;
  readonly breakerThreshold: number;
  readonly breakerTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly name: string;
}

export const TENANT_MANAGER_DEFAULTS = Object.freeze({
  timeoutMs: 30_000,
  cacheTtlMs: 120_000,
  breakerThreshold: 5,
  breakerTimeoutMs: 30_000,
  maxResponseBytes: 10 * 1024 * 1024,
});

/** Checks the options once, at construction. Problems name the option, never its value. */
export function resolveTenantManagerOptions(options: TenantManagerClientOptions): ResolvedTenantManagerOptions {
  const problems: string[] = [];
  let baseUrl = '';
  let url: URL | undefined;
  try {
    url = new URL(options.url);
  } catch {
    problems.push('url: must be an absolute URL');
  }
  if (url) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push('url: must use https');
    else if (url.protocol === 'http:' && !options.allowInsecureHttp) problems.push('url: must use https unless insecure HTTP is allowed');
    if (url.hostname === '') problems.push('url: must name a host');
    if (url.username !== '' || url.password !== '') problems.push('url: must not contain credentials');
    if (url.search !== '' || url.hash !== '') problems.push('url: must not have a query or fragment');
    // A trailing slash would make `//v1/...`; the paths are appended to the base as given.
    baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  }
  if (!options.apiKey) problems.push('apiKey: is required');
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isFinite(value) || value <= 0) problems.push(`${name}: must be a positive number`);
    return value;
  };
  const timeoutMs = positive('timeoutMs', options.timeoutMs, TENANT_MANAGER_DEFAULTS.timeoutMs);
  const cacheTtlMs = positive('cacheTtlMs', options.cacheTtlMs, TENANT_MANAGER_DEFAULTS.cacheTtlMs);
  const maxResponseBytes = positive('maxResponseBytes', options.maxResponseBytes, TENANT_MANAGER_DEFAULTS.maxResponseBytes);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `tenant-manager ${p}`));
  const threshold = options.breakerThreshold ?? 0;
  const breakerTimeout = options.breakerTimeoutMs ?? 0;
  // Threshold <= 0 falls back to both defaults together, as the services have always done.
  const breakerOff = threshold <= 0;
  return {
    baseUrl,
    apiKey: options.apiKey,
    timeoutMs,
    cacheTtlMs,
    breakerThreshold: breakerOff ? TENANT_MANAGER_DEFAULTS.breakerThreshold : threshold,
    breakerTimeoutMs: breakerOff || breakerTimeout <= 0 ? TENANT_MANAGER_DEFAULTS.breakerTimeoutMs : breakerTimeout,
    maxResponseBytes,
    name: options.name ?? 'tenant-manager',
  };
}
