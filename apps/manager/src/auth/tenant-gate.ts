import type { FastifyRequest } from 'fastify';
import { bindVerifiedTenant } from '../http/request-tenant';
import type { TenantTokenVerifier } from './tenant-token.verifier';

/**
 * The tenant guard's one decision, shared by `TenantGuard` (the Nest routes) and the job-status
 * route, which Fastify serves directly. Without a verifier (single-tenant mode) every request passes
 * and keeps the fixed internal tenant; with one, a request passes only with a verified token, whose
 * tenant id is then bound to the request for `requestTenant`.
 */
export class TenantGate {
  constructor(private readonly verifier: TenantTokenVerifier | undefined) {}

  get active(): boolean {
    return this.verifier !== undefined;
  }

  /** Synchronous when there is nothing to verify: this runs on every protected call. */
  admit(request: FastifyRequest): true | Promise<true> {
    if (!this.verifier) return true;
    const raw: string | string[] | undefined = request.headers.authorization;
    return this.verifier.verify(typeof raw === 'string' ? raw : raw?.[0]).then((tenantId) => {
      bindVerifiedTenant(request, tenantId);
      return true as const;
    });
  }
}
