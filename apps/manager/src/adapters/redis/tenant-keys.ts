import type { TenantContext } from '@fetcher/engine';
import type { ManagerTenancy } from '../../config/manager.config';

/**
 * The part of a Redis key that scopes it to a tenant: nothing in single-tenant mode (the keys stay
 * those of earlier releases), `tenant:{tenantId}:` in multi-tenant mode. Tenant ids are letters,
 * digits, `_` and `-` (the guard refuses anything else), so an id cannot reach into another's keys.
 */
export function tenantKeyPrefix(tenancy: ManagerTenancy | undefined, tenant: TenantContext | undefined): string {
  if (!tenancy?.multiTenant) return '';
  if (!tenant || !/^[a-zA-Z0-9][a-zA-Z0-9_-]*$/.test(tenant.tenantId)) throw new Error('multi-tenant Redis key without a verified tenant');
  return `tenant:${tenant.tenantId}:`;
}
