import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The tenant a piece of work runs for, in multi-tenant mode: a delivery from a tenant's vhost, or one
 * tenant's turn of a background pass. The tenant-aware adapters (job store, connection resolver,
 * event publisher) read it to pick the tenant's database and vhost, and refuse to work without one:
 * there is no shared database or vhost to fall back to. Single-tenant mode never enters a scope.
 *
 * Held in an `AsyncLocalStorage`, so it follows the work through every await, timer and callback it
 * starts (lease renewal, a takeover watch) without each port having to carry it.
 */
export class TenantScope {
  readonly #storage = new AsyncLocalStorage<string>();

  /** Runs `work` for `tenantId`; whatever it starts keeps that tenant. */
  run<T>(tenantId: string, work: () => T): T {
    return this.#storage.run(tenantId, work);
  }

  /** The tenant of the work in progress, or undefined outside any scope (single-tenant mode). */
  current(): string | undefined {
    return this.#storage.getStore();
  }

  /** The tenant of the work in progress; throws `NoTenantInScopeError` outside a scope. */
  require(): string {
    const tenantId = this.#storage.getStore();
    if (tenantId === undefined) throw new NoTenantInScopeError();
    return tenantId;
  }
}
export const TENANT_SCOPE = Symbol('TenantScope');

/** A tenant-scoped resource was used outside any tenant's work: a bug, never served from a shared resource. */
export class NoTenantInScopeError extends Error {
  readonly category = 'internal' as const;

  constructor() {
    super('no tenant in scope: multi-tenant resources are used only within a tenant');
    this.name = 'NoTenantInScopeError';
  }
}
