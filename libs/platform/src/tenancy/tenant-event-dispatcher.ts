import type { TenantLifecycleEvent } from './tenant-event';

/**
 * What a service does when tenant events arrive; the Manager and the Worker each implement it.
 * Every method is called for one tenant at a time, in the order the events arrived, and MUST be
 * idempotent: events can repeat, and a later reconcile pass may do the same work again.
 */
export interface TenantEventHandler {
  /**
   * Whether this process holds anything for the tenant (the Worker: a known tenant with consumers;
   * the Manager: a cached tenant). Tenant-level events about other tenants are ignored.
   */
  ownsTenant(tenantId: string): boolean;
  /**
   * Release everything held for the tenant: stop its consumers, close its database and broker
   * connections, drop its cached config. Suspension, deletion, disassociation, purge.
   */
  removeTenant(tenantId: string, event: TenantLifecycleEvent): Promise<void>;
  /**
   * The tenant was associated with (or reactivated for) this service: drop any cached config and start
   * it (the Worker starts its consumers; a service that loads tenants lazily may do nothing).
   */
  addTenant(tenantId: string, event: TenantLifecycleEvent): Promise<void>;
  /**
   * After credentials rotated or a cache invalidation (the tenant has just been removed): fetch the
   * config afresh and start the tenant again. On failure, log; the next use loads it lazily.
   */
  reloadTenant(tenantId: string, event: TenantLifecycleEvent): Promise<void>;
  /** The tenant was activated or updated: extend the life of its cached entry, if there is one. */
  refreshTenant(tenantId: string, event: TenantLifecycleEvent): Promise<void>;
}

/** What the dispatcher did with an event, for logs and tests. */
export type TenantEventOutcome =
  | 'removed' | 'added' | 'reloaded' | 'removed-and-reloaded' | 'refreshed'
  | 'ignored:other-service' | 'ignored:not-owned' | 'ignored:no-op' | 'ignored:unknown-type';

export interface TenantEventDispatcherOptions {
  /** Service-scoped events count only when `payload.service_name` equals it. Default `fetcher`. */
  readonly service?: string;
  /**
   * The wait before a reactivation or reload, so that many instances do not all ask the
   * tenant-manager at once. Default: uniform 0–5 s.
   */
  readonly jitterMs?: () => number;
  /** Waits; resolves early when the signal aborts (the listener is closing). */
  readonly delay?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const SERVICE_SCOPED = new Set(['tenant.credentials.rotated', 'tenant.connections.updated', 'tenant.cache.invalidate']);

/**
 * Turns tenant events into handler calls. Service-scoped events (`tenant.service.*`, credentials,
 * connections, cache) are ignored unless addressed to this service. Tenant-level events other than
 * `tenant.created` act only on tenants this process owns.
 */
export class TenantEventDispatcher {
  readonly #service: string;
  readonly #jitterMs: () => number;
  readonly #delay: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly handler: TenantEventHandler, options: TenantEventDispatcherOptions = {}) {
    this.#service = options.service ?? 'fetcher';
    this.#jitterMs = options.jitterMs ?? (() => Math.floor(Math.random() * 5_000));
    this.#delay = options.delay ?? abortableDelay;
  }

  async dispatch(event: TenantLifecycleEvent, signal: AbortSignal): Promise<TenantEventOutcome> {
    const { eventType: type, tenantId: id } = event;
    if ((type.startsWith('tenant.service.') || SERVICE_SCOPED.has(type)) && event.payload?.service_name !== this.#service) {
      return 'ignored:other-service';
    }
    const h = this.handler;
    switch (type) {
      case 'tenant.created': // loaded lazily on first use
      case 'tenant.connections.updated': // pool settings for PostgreSQL pools, which these services do not keep per tenant
        return 'ignored:no-op';
      case 'tenant.activated':
      case 'tenant.updated':
        if (!h.ownsTenant(id)) return 'ignored:not-owned';
        await h.refreshTenant(id, event);
        return 'refreshed';
      case 'tenant.suspended':
      case 'tenant.deleted':
        if (!h.ownsTenant(id)) return 'ignored:not-owned';
        await h.removeTenant(id, event);
        return 'removed';
      case 'tenant.service.disassociated':
      case 'tenant.service.suspended':
      case 'tenant.service.purged':
        await h.removeTenant(id, event);
        return 'removed';
      case 'tenant.service.associated':
        await h.addTenant(id, event);
        return 'added';
      case 'tenant.service.reactivated':
        await this.#delay(this.#jitterMs(), signal);
        if (signal.aborted) return 'ignored:no-op';
        await h.addTenant(id, event);
        return 'added';
      case 'tenant.credentials.rotated':
        await h.removeTenant(id, event);
        return this.#reloadAfterJitter(id, event, signal);
      case 'tenant.cache.invalidate': {
        // Only a tenant this process had is loaded again; for others an invalidation is evict-only.
        const owned = h.ownsTenant(id);
        await h.removeTenant(id, event);
        return owned ? this.#reloadAfterJitter(id, event, signal) : 'removed';
      }
      default:
        return 'ignored:unknown-type';
    }
  }

  async #reloadAfterJitter(id: string, event: TenantLifecycleEvent, signal: AbortSignal): Promise<TenantEventOutcome> {
    await this.#delay(this.#jitterMs(), signal);
    if (signal.aborted) return 'removed';
    await this.handler.reloadTenant(id, event);
    return 'removed-and-reloaded';
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
