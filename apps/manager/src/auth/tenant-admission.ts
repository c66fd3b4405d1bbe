import { TenantManagerError, type TenantManagerClient } from '@fetcher/platform';
import { Errors } from '../errors/catalogue';

/** The tenant-manager service Fetcher's own tenant config is read for. */
export const FETCHER_SERVICE = 'fetcher';

/**
 * Step 6 of the tenant guard: the verified tenant must be one the tenant-manager serves `fetcher`
 * for. A config already cached answers without a call (the client's TTL cache), so a steady stream
 * of requests costs one lookup per tenant per TTL. Every failure becomes the contract's body:
 * unknown 404, suspended or purged 403 `0131`, no answer or an open breaker 503, anything else 500.
 */
export class TenantAdmission {
  constructor(private readonly client: TenantManagerClient) {}

  async admit(tenantId: string): Promise<void> {
    try {
      await this.client.getTenantConfig(tenantId, FETCHER_SERVICE);
    } catch (error) {
      throw admissionError(tenantId, error);
    }
  }
}

/** The guard's answer to a failed tenant lookup; also used where a tenant's config is read later in a request. */
export function admissionError(tenantId: string, error: unknown): Error {
  if (!(error instanceof TenantManagerError)) return Errors.tenantLookupFailed();
  switch (error.reason) {
    case 'tenant_not_found':
      return Errors.tenantNotFound(tenantId);
    case 'tenant_suspended':
    case 'tenant_purged':
      return Errors.tenantSuspended(error.tenantStatus ?? (error.reason === 'tenant_purged' ? 'purged' : 'suspended'));
    case 'access_denied':
      return Errors.tenantAccessDenied();
    default:
      return error.category === 'unavailable' ? Errors.tenantServiceUnavailable() : Errors.tenantLookupFailed();
  }
}
