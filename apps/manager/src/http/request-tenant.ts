import { createTenantContext, type TenantContext } from '@fetcher/engine';
import type { FastifyRequest } from 'fastify';
import type { ManagerTenancy } from '../config/manager.config';

/**
 * Tenant ids the tenant guard took from verified tokens, keyed by the request object. A WeakMap
 * rather than a request property: nothing a client sends (headers, body, query) can reach it.
 */
const verifiedTenants = new WeakMap<object, string>();

/** Called by the tenant guard once a token is verified; nothing else may call it. */
export function bindVerifiedTenant(request: FastifyRequest, tenantId: string): void {
  verifiedTenants.set(request, tenantId);
}

/**
 * The tenant id of a request: the fixed internal tenant in single-tenant mode, the verified token's
 * tenant in multi-tenant mode. Without a verified tenant the request fails closed: that means a
 * route was served without the guard, a wiring bug, and never a reason to fall back to a default.
 */
export function tenantIdOf(tenancy: ManagerTenancy, request: FastifyRequest): string {
  if (!tenancy.multiTenant) return tenancy.tenantId;
  const tenantId = verifiedTenants.get(request);
  if (tenantId === undefined) throw new Error('multi-tenant request without a verified tenant: the route is not behind the tenant guard');
  return tenantId;
}

/**
 * The tenant of a request; the request id rides along for logs and messages (a malformed one is
 * dropped rather than refused).
 */
export function requestTenant(tenancy: ManagerTenancy, request: FastifyRequest): TenantContext {
  const header = request.headers['x-request-id'];
  const requestId = typeof header === 'string' && /^[\x21-\x7e]{1,128}$/.test(header) ? header : undefined;
  return createTenantContext(tenantIdOf(tenancy, request), requestId);
}

/**
 * The tenant of a job request, carrying the request's own id (the caller's acceptable `X-Request-Id`
 * or the one generated for the call): it travels into the job message and the Worker's logs.
 */
export function jobRequestTenant(tenancy: ManagerTenancy, request: FastifyRequest): TenantContext {
  return createTenantContext(tenantIdOf(tenancy, request), typeof request.id === 'string' && request.id !== '' ? request.id : undefined);
}
