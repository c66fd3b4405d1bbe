import type { TenantEventHandler, TenantLease, TenantLifecycleEvent } from '@fetcher/platform';
import { TenantManagerError } from '@fetcher/platform';

/** One tenant's consumer on its vhost, once started; `stop` cancels it and waits for its jobs in flight. */
export interface TenantQueueConsumer {
  stop(): Promise<void>;
}

/** What the registry needs from the rest of the Worker; each is replaced by a fake in unit tests. */
export interface TenantConsumersDeps<C> {
  /** The tenant's `fetcher` config (the tenant-manager client, cached); `fresh` bypasses the cache. */
  readonly loadConfig: (tenantId: string, fresh: boolean) => Promise<unknown>;
  /** Leases the tenant's broker connection for the consumer's life (the per-tenant RabbitMQ pool). */
  readonly acquireConnection: (tenantId: string) => Promise<TenantLease<C>>;
  /** Starts consuming the work queue on that connection; resolves once the consumer is registered. */
  readonly startConsumer: (tenantId: string, connection: C) => Promise<TenantQueueConsumer>;
  /**
   * Releases the rest of what is held for a removed tenant, in this order: its MongoDB pool entry,
   * its RabbitMQ pool entry, its cached config.
   */
  readonly releaseTenant: (tenantId: string) => Promise<void>;
  /** Drops the tenant's cached config, so the next read asks the tenant-manager. */
  readonly invalidateConfig: (tenantId: string) => void;
  readonly logger: { log(message: string): void; warn(message: string): void };
  /** Waits between failed starts: exponential with full jitter, base 5 s, cap 40 s. */
  readonly retryDelayMs?: (attempt: number) => number;
  /** Schedules a retry; tests run them by hand. */
  readonly schedule?: (run: () => void, ms: number) => { cancel(): void };
  /**
   * `MULTI_TENANT_MAX_TENANT_POOLS`. Every consuming tenant keeps its vhost connection (a connection
   * serves one vhost, and a consumer cannot be evicted without stopping that tenant's jobs), so the
   * cap does not stop a consumer from starting; crossing it is logged, once each time.
   */
  readonly connectionCap?: number;
}

/** After this many failed starts in a row the tenant is logged as degraded (it keeps being retried). */
export const DEGRADED_AFTER = 3;
const RETRY_BASE_MS = 5_000;
const RETRY_CAP_MS = 40_000;

export function tenantRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.max(RETRY_BASE_MS / 5, Math.floor(random() * ceiling));
}

interface Running<C> {
  readonly consumer: TenantQueueConsumer;
  readonly lease: TenantLease<C>;
}

/**
 * The Worker's consumers in multi-tenant mode: one per tenant, on the work queue of the tenant's own
 * vhost. Every trigger ends in `ensureStarted` (the initial sync and the reconciler, tenant events,
 * a lazy load on a cache miss), which is idempotent. Operations on one tenant run one at a time in
 * call order (a per-tenant lock); different tenants never wait for each other, and one tenant's
 * failure (its vhost refuses us, its config is broken) is retried for that tenant alone.
 *
 * It is the Worker's `TenantEventHandler`: tenant events drive it directly.
 */
export class TenantConsumers<C> implements TenantEventHandler {
  /** Tenants this process serves: started, or being retried. Tenant-level events act only on these. */
  readonly #known = new Set<string>();
  readonly #running = new Map<string, Running<C>>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #retries = new Map<string, { attempts: number; timer?: { cancel(): void } }>();
  readonly #stopWaiters = new Map<string, (() => void)[]>();
  readonly #retryDelayMs: (attempt: number) => number;
  readonly #schedule: (run: () => void, ms: number) => { cancel(): void };
  #closed = false;
  #aboveCap = false;

  constructor(private readonly deps: TenantConsumersDeps<C>) {
    this.#retryDelayMs = deps.retryDelayMs ?? ((attempt) => tenantRetryDelayMs(attempt));
    this.#schedule = deps.schedule ?? ((run, ms) => {
      const timer = setTimeout(run, ms);
      timer.unref();
      return { cancel: () => clearTimeout(timer) };
    });
  }

  ownsTenant(tenantId: string): boolean {
    return this.#known.has(tenantId);
  }

  isConsuming(tenantId: string): boolean {
    return this.#running.has(tenantId);
  }

  /** Tenants with a consumer running. */
  consuming(): string[] {
    return [...this.#running.keys()];
  }

  known(): string[] {
    return [...this.#known];
  }

  /**
   * Starts the tenant's consumer unless it runs already or the registry is closed. A tenant not yet
   * known is loaded first; if that fails (not found, suspended, the tenant-manager down) nothing
   * starts and a later trigger may try again. Resolves with whether a consumer runs afterwards.
   */
  ensureStarted(tenantId: string): Promise<boolean> {
    return this.#locked(tenantId, () => this.#start(tenantId));
  }

  /** Stops the tenant's consumer (waiting for its jobs in flight) and forgets it; its pools stay. */
  stop(tenantId: string): Promise<void> {
    return this.#locked(tenantId, () => this.#stop(tenantId));
  }

  /**
   * Suspended, deleted, purged, disassociated, or absent from the tenant-manager's list: stop the
   * consumer, then close the tenant's MongoDB and RabbitMQ pools and drop its cached config.
   */
  removeTenant(tenantId: string, _event?: TenantLifecycleEvent): Promise<void> {
    return this.#locked(tenantId, async () => {
      await this.#stop(tenantId);
      await this.deps.releaseTenant(tenantId);
    });
  }

  /** Associated or reactivated: forget any cached config, mark it known, start it. */
  async addTenant(tenantId: string, _event?: TenantLifecycleEvent): Promise<void> {
    await this.#locked(tenantId, () => {
      this.deps.invalidateConfig(tenantId);
      this.#known.add(tenantId);
      return Promise.resolve();
    });
    await this.ensureStarted(tenantId);
  }

  /** After rotated credentials or an invalidation (already removed): load afresh and start again. */
  async reloadTenant(tenantId: string, event?: TenantLifecycleEvent): Promise<void> {
    try {
      await this.deps.loadConfig(tenantId, true);
    } catch (error) {
      this.deps.logger.warn(`tenant ${tenantId}: reload failed (${reasonOf(error)}); it is loaded on next use`);
      return;
    }
    await this.addTenant(tenantId, event);
  }

  /** Activated or updated: nothing to do; the cached config expires on its own. */
  async refreshTenant(): Promise<void> {}

  /** Resolves once the tenant's running consumer has stopped (at once when none runs); for tests and drains. */
  whenStopped(tenantId: string): Promise<void> {
    if (!this.#running.has(tenantId)) return Promise.resolve();
    return new Promise((resolve) => this.#stopWaiters.set(tenantId, [...(this.#stopWaiters.get(tenantId) ?? []), resolve]));
  }

  /** Resolves once every operation on the tenant asked for so far has ended; starts nothing. */
  async settled(tenantId: string): Promise<void> {
    await this.#locks.get(tenantId);
  }

  /** Stops every consumer (their jobs in flight finish) and refuses to start new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    // A start still in progress (a lazy start, say) is among the locked tenants: its stop runs after it.
    const tenants = new Set([...this.#running.keys(), ...this.#retries.keys(), ...this.#locks.keys()]);
    await Promise.all([...tenants].map((t) => this.stop(t)));
  }

  async #start(tenantId: string): Promise<boolean> {
    if (this.#closed) return false;
    if (this.#running.has(tenantId)) return true;
    this.#retries.get(tenantId)?.timer?.cancel();
    if (!this.#known.has(tenantId)) {
      try {
        await this.deps.loadConfig(tenantId, false);
      } catch (error) {
        this.deps.logger.warn(`tenant ${tenantId}: not started (${reasonOf(error)})`);
        return false;
      }
      this.#known.add(tenantId);
    }
    let lease: TenantLease<C> | undefined;
    try {
      lease = await this.deps.acquireConnection(tenantId);
      const consumer = await this.deps.startConsumer(tenantId, lease.resource);
      this.#running.set(tenantId, { consumer, lease });
      this.#retries.delete(tenantId);
      this.deps.logger.log(`tenant ${tenantId}: consuming`);
      this.#checkCap();
      return true;
    } catch (error) {
      lease?.release();
      if (error instanceof TenantManagerError && error.tenantInactive) {
        // Suspended or purged while we were starting it: it has no business here.
        this.deps.logger.warn(`tenant ${tenantId}: ${error.reason}; removed`);
        this.#known.delete(tenantId);
        this.#retries.delete(tenantId);
        await this.deps.releaseTenant(tenantId).catch(() => undefined);
        return false;
      }
      this.#scheduleRetry(tenantId, error);
      return false;
    }
  }

  #scheduleRetry(tenantId: string, error: unknown): void {
    const state = this.#retries.get(tenantId) ?? { attempts: 0 };
    state.attempts++;
    this.#retries.set(tenantId, state);
    const reason = reasonOf(error);
    if (state.attempts >= DEGRADED_AFTER) this.deps.logger.warn(`tenant ${tenantId}: degraded, ${state.attempts} failed starts in a row (${reason})`);
    else this.deps.logger.warn(`tenant ${tenantId}: consumer did not start (${reason}); retrying`);
    state.timer = this.#schedule(() => {
      state.timer = undefined;
      if (this.#retries.get(tenantId) === state) void this.ensureStarted(tenantId);
    }, this.#retryDelayMs(state.attempts));
  }

  async #stop(tenantId: string): Promise<void> {
    this.#known.delete(tenantId);
    const retry = this.#retries.get(tenantId);
    retry?.timer?.cancel();
    this.#retries.delete(tenantId);
    const running = this.#running.get(tenantId);
    if (!running) return;
    this.#running.delete(tenantId);
    this.#checkCap();
    try {
      await running.consumer.stop();
    } catch (error) {
      this.deps.logger.warn(`tenant ${tenantId}: consumer did not stop cleanly (${reasonOf(error)})`);
    } finally {
      running.lease.release();
    }
    this.deps.logger.log(`tenant ${tenantId}: consumer stopped`);
    const waiters = this.#stopWaiters.get(tenantId) ?? [];
    this.#stopWaiters.delete(tenantId);
    for (const resolve of waiters) resolve();
  }

  #checkCap(): void {
    const cap = this.deps.connectionCap;
    if (cap === undefined) return;
    const above = this.#running.size > cap;
    if (above && !this.#aboveCap) {
      this.deps.logger.warn(
        `${this.#running.size} tenants consuming, above MULTI_TENANT_MAX_TENANT_POOLS=${cap}: each keeps its own vhost connection, ` +
          'so this Worker holds more broker connections than the cap (spread tenants over more Workers, or raise the cap)',
      );
    }
    this.#aboveCap = above;
  }

  /** Runs `work` after every earlier operation on the tenant; its failure does not block later ones. */
  #locked<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(tenantId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.#locks.set(tenantId, settled);
    void settled.then(() => {
      if (this.#locks.get(tenantId) === settled) this.#locks.delete(tenantId);
    });
    return next;
  }
}

/** A reason safe to log: the error's own reason or name, never its message (it may quote a URL). */
function reasonOf(error: unknown): string {
  if (error && typeof error === 'object' && 'reason' in error && typeof error.reason === 'string') return error.reason;
  return error instanceof Error ? error.name : 'error';
}
