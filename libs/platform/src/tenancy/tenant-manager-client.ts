import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { BreakerState } from '../readiness/probe';
import { CircuitBreaker } from '../readiness/circuit-breaker';
import { boundedGet } from './bounded-get';
import { type Classified, classifyActiveTenants, classifyConnections } from './classify-answer';
import { ActiveTenantsSchema, type TenantConfig, TenantConfigSchema, type TenantSummary } from './tenant-config';
import { TenantManagerError } from './tenant-manager-error';
import { type ResolvedTenantManagerOptions, resolveTenantManagerOptions, type TenantManagerClientOptions } from './tenant-manager-options';
import { TtlCache } from './ttl-cache';
import { TenantManagerMetrics } from './tenant-manager-metrics';

export interface GetTenantConfigOptions {
  /** Ask the tenant-manager even when a cached config exists (revalidation); the answer is cached. */
  readonly skipCache?: boolean;
  /** Ends the wait early (a readiness probe's own deadline). */
  readonly signal?: AbortSignal;
}

type Endpoint = 'connections' | 'active';
const TEMPLATES: Readonly<Record<Endpoint, string>> = {
  connections: '/v1/tenants/{tenantId}/associations/{service}/connections',
  active: '/v1/tenants/active',
};

/**
 * Reads tenants from the tenant-manager: a tenant's config for one service (`/connections`, cached
 * for `cacheTtlMs`) and the active tenants of a service (never cached). One circuit breaker guards
 * both endpoints; a cached config is served even while it is open. Failures are `TenantManagerError`s;
 * none is cached, and a not-found, suspended or purged answer also drops the tenant's cached config.
 *
 * Breaker accounting follows what the answers say about the tenant-manager's health: no answer and
 * 5xx count as failures; a 200, and a 404 or 403 about a tenant, as successes; a 200 with a bad body
 * and, on `/connections`, other 4xx answers (a wrong API key) count as neither.
 */
export class TenantManagerClient {
  readonly #options: ResolvedTenantManagerOptions;
  readonly #breaker: CircuitBreaker;
  readonly #cache: TtlCache<TenantConfig>;
  /** Concurrent cache misses for one tenant and service share one request. */
  readonly #inFlight = new Map<string, Promise<TenantConfig>>();
  readonly #tracer: Tracer;
  readonly #metrics: TenantManagerMetrics | undefined;
  #closed = false;

  constructor(options: TenantManagerClientOptions) {
    this.#options = resolveTenantManagerOptions(options);
    const now = options.now ?? Date.now;
    this.#breaker = new CircuitBreaker(this.#options.name, {
      threshold: this.#options.breakerThreshold, coolDownMs: this.#options.breakerTimeoutMs, now,
    });
    this.#cache = new TtlCache(this.#options.cacheTtlMs, now);
    this.#tracer = options.tracer ?? trace.getTracer('@fetcher/platform');
    this.#metrics = options.metrics ? new TenantManagerMetrics(options.metrics, this.#options.name) : undefined;
  }

  get name(): string {
    return this.#options.name;
  }

  /** For readiness: `open` while calls fail fast, `half-open` while a trial may go through. */
  get breakerState(): BreakerState {
    return this.#breaker.state;
  }

  /**
   * The tenant's config for one service (`fetcher` for Fetcher's own database and vhost, `ledger`
   * for internal datasources). The returned object is frozen and shared between callers.
   */
  async getTenantConfig(tenantId: string, service: string, options: GetTenantConfigOptions = {}): Promise<TenantConfig> {
    this.#assertOpen({ tenantId, service });
    const key = cacheKey(tenantId, service);
    if (!options.skipCache) {
      const cached = this.#cache.get(key);
      if (cached) return cached;
    }
    const shared = !options.skipCache && !options.signal;
    const pending = shared ? this.#inFlight.get(key) : undefined;
    if (pending) return pending;
    const request = this.#call('connections', `/v1/tenants/${encodeURIComponent(tenantId)}/associations/${encodeURIComponent(service)}/connections`,
      (outcome) => classifyConnections(outcome, TenantConfigSchema, { tenantId, service }), { tenantId, service }, options.signal)
      .then((config) => {
        const frozen = deepFreeze(config);
        if (!this.#closed) this.#cache.set(key, frozen);
        return frozen;
      }, (error: unknown) => {
        // The tenant-manager just said the tenant is gone or inactive: a cached config must not outlive that.
        if (error instanceof TenantManagerError && (error.category === 'not_found' || error.tenantInactive)) this.#cache.delete(key);
        throw error;
      });
    if (!shared) return request;
    this.#inFlight.set(key, request);
    try {
      return await request;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** The tenants the tenant-manager lists as active for a service, asked afresh every time. */
  getActiveTenants(service: string, options: { readonly signal?: AbortSignal } = {}): Promise<readonly TenantSummary[]> {
    this.#assertOpen({ service });
    return this.#call('active', `/v1/tenants/active?service=${encodeURIComponent(service)}`,
      (outcome) => classifyActiveTenants(outcome, ActiveTenantsSchema, { service }), { service }, options.signal);
  }

  /** Forgets a cached config (a removed tenant, rotated credentials); the next read asks again. */
  invalidate(tenantId: string, service: string): void {
    this.#cache.delete(cacheKey(tenantId, service));
  }

  /** Empties the cache; every later call fails with `closed`. Calling it again does nothing. */
  close(): void {
    this.#closed = true;
    this.#cache.clear();
  }

  #assertOpen(context: { tenantId?: string; service?: string }): void {
    if (this.#closed) throw new TenantManagerError('closed', context);
  }

  async #call<T>(
    endpoint: Endpoint, path: string, classify: (outcome: Awaited<ReturnType<typeof boundedGet>>) => Classified<T>,
    errorContext: { tenantId?: string; service?: string }, signal: AbortSignal | undefined,
  ): Promise<T> {
    if (!this.#breaker.tryAcquire()) {
      this.#metrics?.record(endpoint, 'circuit_open');
      throw new TenantManagerError('circuit_open', errorContext);
    }
    const span = this.#tracer.startSpan(`GET ${TEMPLATES[endpoint]}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': 'GET',
        'url.template': TEMPLATES[endpoint],
        'fetcher.tenant_manager.client': this.#options.name,
        ...(errorContext.service ? { 'fetcher.tenant_manager.service': errorContext.service } : {}),
        ...(errorContext.tenantId ? { 'fetcher.tenant.id': errorContext.tenantId } : {}),
      },
    });
    const headers: Record<string, string> = { 'X-API-Key': this.#options.apiKey, Accept: 'application/json', 'Content-Type': 'application/json' };
    propagation.inject(trace.setSpan(context.active(), span), headers);
    const started = performance.now();
    const outcome = await boundedGet(`${this.#options.baseUrl}${path}`, {
      headers, timeoutMs: this.#options.timeoutMs, maxBytes: this.#options.maxResponseBytes, signal,
    });
    const result = classify(outcome);
    if (result.breaker === 'success') this.#breaker.recordSuccess();
    else if (result.breaker === 'failure') this.#breaker.recordFailure();
    else this.#breaker.recordNeutral();

    if (outcome.kind === 'answered') span.setAttribute('http.response.status_code', outcome.status);
    if (!result.ok) {
      span.setAttribute('fetcher.error.category', result.error.category);
      span.setAttribute('fetcher.tenant_manager.reason', result.error.reason);
      // A 404 or 403 is an answer about a tenant, not a fault of the call.
      if (result.error.category === 'unavailable' || result.error.category === 'internal') {
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.reason });
      }
    }
    span.end();
    this.#metrics?.record(endpoint, result.ok ? 'ok' : result.error.reason, (performance.now() - started) / 1000);
    if (result.ok) return result.value;
    throw result.error;
  }
}

function cacheKey(tenantId: string, service: string): string {
  return `tenant-connections:${tenantId}:${service}`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
