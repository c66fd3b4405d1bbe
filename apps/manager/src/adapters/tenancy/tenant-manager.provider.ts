import type { FactoryProvider } from '@nestjs/common';
import type { MultiTenancy } from '@fetcher/contracts';
import { MetricsRegistry, TenantManagerClient } from '@fetcher/platform';

/** The Manager's tenant-manager client (multi-tenant mode only): the guard, the pools and readiness share it. */
export const TENANT_MANAGER_CLIENT = Symbol('TenantManagerClient');

export function tenantManagerClientFrom(tenancy: MultiTenancy, metrics?: MetricsRegistry): TenantManagerClient {
  const tm = tenancy.tenantManager;
  return new TenantManagerClient({
    url: tm.url,
    apiKey: tm.apiKey,
    timeoutMs: tm.timeoutMs,
    cacheTtlMs: tm.cacheTtlSec * 1000,
    breakerThreshold: tm.breaker.threshold,
    breakerTimeoutMs: tm.breaker.openSec * 1000,
    allowInsecureHttp: tm.allowInsecureHttp,
    name: 'manager',
    ...(metrics ? { metrics } : {}),
  });
}

export function tenantManagerClientProvider(tenancy: MultiTenancy): FactoryProvider<TenantManagerClient> {
  return {
    provide: TENANT_MANAGER_CLIENT,
    inject: [MetricsRegistry],
    useFactory: (metrics: MetricsRegistry) => tenantManagerClientFrom(tenancy, metrics),
  };
}
