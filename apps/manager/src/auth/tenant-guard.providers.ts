import type { Provider } from '@nestjs/common';
import type { ManagerTenancy } from '../config/manager.config';
import { TenantGate } from './tenant-gate';
import { TenantGuard } from './tenant.guard';
import { TenantTokenVerifier, type TenantTokenVerifierOptions } from './tenant-token.verifier';

/**
 * The tenant guard's bindings for the composition root: a pass-through gate in single-tenant mode,
 * a verifying one in multi-tenant mode. The verifier is built here, at startup, so an unreadable key
 * fails the boot rather than the first request.
 */
export function tenantGuardProviders(tenancy: ManagerTenancy, options: TenantTokenVerifierOptions = {}): Provider[] {
  const verifier = tenancy.multiTenant ? new TenantTokenVerifier(tenancy.tokens, options) : undefined;
  return [{ provide: TenantGate, useValue: new TenantGate(verifier) }, TenantGuard];
}
