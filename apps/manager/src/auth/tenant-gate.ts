import type { FastifyRequest } from 'fastify';
import { bindVerifiedTenant } from '../http/request-tenant';
import type { TenantAdmission } from './tenant-admission';
import type { TenantTokenVerifier } from './tenant-token.verifier';

/** Multi-tenant mode's two steps: who the token says (steps 1-5), then whether that tenant is served (step 6). */
export interface TenantChecks {
  readonly verifier: TenantTokenVerifier;
  readonly admission: TenantAdmission;
}

/**
 * The tenant guard's one decision, shared by `TenantGuard` (the Nest routes) and the job-result
 * route, which Fastify serves directly. Without a verifier (single-tenant mode) every request passes
 * and keeps the fixed internal tenant; with one, a request passes only with a verified token whose
 * tenant the tenant-manager serves, and that tenant id is then bound to the request for `requestTenant`.
 */
export class TenantGate {
  constructor(private readonly checks: TenantChecks | undefined) {}

  get active(): boolean {
    return this.checks !== undefined;
  }

  /** Synchronous when there is nothing to verify: this runs on every protected call. */
  admit(request: FastifyRequest): true | Promise<true> {
    const checks = this.checks;
    if (!checks) return true;
    const raw: string | string[] | undefined = request.headers.authorization;
    return checks.verifier.verify(typeof raw === 'string' ? raw : raw?.[0]).then(async (tenantId) => {
      await checks.admission.admit(tenantId);
      bindVerifiedTenant(request, tenantId);
      return true as const;
    });
  }
}
