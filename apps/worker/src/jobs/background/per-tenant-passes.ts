import type { BackgroundPass } from './background-loops';

/**
 * Multi-tenant mode binds this: it turns a background pass into one that runs for every active
 * tenant, within that tenant's scope. Absent (single-tenant), passes run once against the shared store.
 */
export type PerTenantPasses = (pass: BackgroundPass, name: string) => BackgroundPass;
export const PER_TENANT_PASSES = Symbol('PerTenantPasses');
