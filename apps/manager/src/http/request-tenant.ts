import { createTenantContext, type TenantContext } from '@fetcher/engine';
import type { FastifyRequest } from 'fastify';

/**
 * The tenant of a request. Single-tenant deployments have one fixed internal tenant; the request id
 * rides along for logs and messages (a malformed one is dropped rather than refused).
 */
export function requestTenant(tenantId: string, request: FastifyRequest): TenantContext {
  const header = request.headers['x-request-id'];
  const requestId = typeof header === 'string' && /^[\x21-\x7e]{1,128}$/.test(header) ? header : undefined;
  return createTenantContext(tenantId, requestId);
}

/**
 * The tenant of a job request, carrying the request's own id (the caller's acceptable `X-Request-Id`
 * or the one generated for the call): it travels into the job message and the Worker's logs.
 */
export function jobRequestTenant(tenantId: string, request: FastifyRequest): TenantContext {
  return createTenantContext(tenantId, typeof request.id === 'string' && request.id !== '' ? request.id : undefined);
}
