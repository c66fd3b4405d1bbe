/**
 * Tenant context rules. The tenant is the only isolation dimension: every port call
 * receives it, and every operation re-checks it because hosts can build the object by hand.
 */
import { EngineError, ErrorText } from './errors';
import type { TenantContext } from './models';

const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const MAX_TENANT_ID_BYTES = 256;

/** The only sanctioned way to make a tenant: trims, then checks the id. */
export function createTenantContext(tenantId: string, requestId?: string): TenantContext {
  if (typeof tenantId !== 'string') throw new EngineError('validation', ErrorText.tenantInvalid);
  const id = tenantId.trim();
  if (!isTenantId(id)) throw new EngineError('validation', ErrorText.tenantInvalid);
  if (requestId === undefined || requestId === null) return Object.freeze({ tenantId: id });
  if (typeof requestId !== 'string') throw new EngineError('validation', ErrorText.requestIdInvalid);
  const request = requestId.trim();
  return Object.freeze(request === '' ? { tenantId: id } : { tenantId: id, requestId: request });
}

/**
 * Re-checks a tenant received by an operation and returns a frozen copy, so a getter or a later
 * mutation of the caller's object cannot change the scope between two port calls.
 */
export function requireTenant(tenant: unknown): TenantContext {
  if (typeof tenant !== 'object' || tenant === null) throw tenantRequired();
  const { tenantId, requestId } = tenant as { tenantId?: unknown; requestId?: unknown };
  if (typeof tenantId !== 'string' || !isTenantId(tenantId)) throw tenantRequired();
  if (requestId === undefined) return Object.freeze({ tenantId });
  if (typeof requestId !== 'string') throw tenantRequired();
  return Object.freeze({ tenantId, requestId });
}

export function isTenantId(id: string): boolean {
  // The pattern admits ASCII only, so the UTF-16 length is the byte length.
  return id.length >= 1 && id.length <= MAX_TENANT_ID_BYTES && TENANT_ID.test(id);
}

function tenantRequired(): EngineError {
  return new EngineError('validation', ErrorText.tenantRequired);
}
