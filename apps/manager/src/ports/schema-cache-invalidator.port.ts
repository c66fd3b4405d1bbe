import type { TenantContext } from '@fetcher/engine';

/** Drops every cached schema of a config name (all scopes). MUST NOT reject: a failure is logged. */
export interface SchemaCacheInvalidator {
  invalidate(tenant: TenantContext, configNames: readonly string[]): Promise<void>;
}
export const SCHEMA_CACHE_INVALIDATOR = Symbol('SchemaCacheInvalidator');
