import type { Provider } from '@nestjs/common';
import type { ManagerTenancy } from '../config/manager.config';
import { TENANT_MANAGER_CLIENT } from '../adapters/tenancy/tenant-manager.provider';
import type { TenantManagerClient } from '@fetcher/platform';
import { TenantAdmission } from './tenant-admission';
import { TenantGate } from './tenant-gate';
import { TenantGuard } from './tenant.guard';
import { TenantTokenVerifier, type TenantTokenVerifierOptions } from './tenant-token.verifier';

/**
 * The tenant guard's bindings for the composition root: a pass-through gate in single-tenant mode,
 * a verifying and admitting one in multi-tenant mode, which then needs TENANT_MANAGER_CLIENT bound.
 * The verifier is built here, at startup, so an unreadable key fails the boot rather than the first request.
 */
export function tenantGuardProviders(tenancy: ManagerTenancy, options: TenantTokenVerifierOptions = {}): Provider[] {
  if (!tenancy.multiTenant) return [{ provide: TenantGate, useValue: new TenantGate(undefined) }, TenantGuard];
  const verifier = new TenantTokenVerifier(tenancy.tokens, options);
  return [
    {
      provide: TenantGate,
      inject: [TENANT_MANAGER_CLIENT],
      useFactory: (client: TenantManagerClient) => new TenantGate({ verifier, admission: new TenantAdmission(client) }),
    },
    TenantGuard,
  ];
}
