/** Why a pooled resource was disposed. */
export type TenantPoolDisposeReason = 'lru' | 'idle' | 'evicted' | 'closed';

export interface TenantPoolOptions<R> {
  /** For logs and errors, e.g. `tenant-mongodb`. */
  readonly name: string;
  /** Opens the tenant's resource. A rejection is handed to every waiter and nothing is kept. */
  readonly open: (tenantId: string) => Promise<R>;
  /** Releases a resource the pool no longer holds. Its failure is reported to `onDisposeError`, never thrown. */
  readonly dispose: (tenantId: string, resource: R, reason: TenantPoolDisposeReason) => Promise<void> | void;
  /** Soft cap (`MULTI_TENANT_MAX_TENANT_POOLS`): above it, the least recently used entry without a lease is evicted. */
  readonly maxTenants: number;
  /** An entry without a lease unused this long (`MULTI_TENANT_IDLE_TIMEOUT_SEC`) is evicted by the sweep. */
  readonly idleTimeoutMs: number;
  /** How often the idle sweep runs; 0 turns the timer off (tests call `sweepIdle`). Default: half the idle timeout, at most 60 s. */
  readonly sweepIntervalMs?: number;
  readonly now?: () => number;
  readonly onDisposeError?: (tenantId: string, error: unknown) => void;
}

/** A resource held for one operation (or one consumer's life); `release` exactly once when done. */
export interface TenantLease<R> {
  readonly tenantId: string;
  readonly resource: R;
  release(): void;
}

export interface TenantPoolStats {
  /** Entries held (open or opening). */
  readonly size: number;
  readonly opened: number;
  readonly disposed: Readonly<Record<TenantPoolDisposeReason, number>>;
}

interface Entry<R> {
  readonly tenantId: string;
  /** Settles once; the entry leaves the map if it rejects. */
  readonly ready: Promise<R>;
  resource?: R;
  leases: number;
  lastUsed: number;
  /** Set once the entry left the pool; it is disposed when no lease holds it. */
  doomed?: TenantPoolDisposeReason;
  /** Resolves once the resource has been disposed (or its open failed). */
  disposal?: Promise<void>;
  resolveDisposal?: () => void;
  finished?: boolean;
}

/**
 * One resource per tenant (a MongoDB client, an AMQP connection), opened on first use and shared.
 *
 * - Concurrent `acquire`s of a tenant that is not open share one `open` call.
 * - The cap is soft: when a new tenant would exceed it, the least recently used entry *without a
 *   lease* is evicted; if every entry is leased the pool grows past the cap rather than break a
 *   running operation.
 * - An entry nobody has leased for `idleTimeoutMs` is evicted by the sweep.
 * - A leased entry is never disposed under its holder: `evict` and `closeAll` take it out of the pool
 *   at once (the next `acquire` opens a fresh one) and dispose it when its last lease is released.
 *   Their promises resolve when that has happened, so a caller that must know the resource is gone
 *   (a removed tenant) waits for the operations still running on it.
 */
export class TenantPool<R> {
  readonly #options: TenantPoolOptions<R>;
  readonly #now: () => number;
  /** Insertion order is kept as recency order: an entry is re-inserted on every use. */
  readonly #entries = new Map<string, Entry<R>>();
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #disposed: Record<TenantPoolDisposeReason, number> = { lru: 0, idle: 0, evicted: 0, closed: 0 };
  #opened = 0;
  #closed = false;

  constructor(options: TenantPoolOptions<R>) {
    if (options.maxTenants < 1) throw new RangeError('maxTenants must be at least 1');
    this.#options = options;
    this.#now = options.now ?? Date.now;
    const interval = options.sweepIntervalMs ?? Math.min(60_000, Math.max(1_000, Math.floor(options.idleTimeoutMs / 2)));
    if (interval > 0) {
      this.#timer = setInterval(() => void this.sweepIdle(), interval);
      this.#timer.unref();
    }
  }

  get name(): string {
    return this.#options.name;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether the tenant has an entry (open or opening). */
  has(tenantId: string): boolean {
    return this.#entries.has(tenantId);
  }

  tenants(): string[] {
    return [...this.#entries.keys()];
  }

  stats(): TenantPoolStats {
    return { size: this.#entries.size, opened: this.#opened, disposed: { ...this.#disposed } };
  }

  /** The tenant's resource, opened if needed, leased until `release()`. */
  async acquire(tenantId: string): Promise<TenantLease<R>> {
    if (this.#closed) throw new Error(`${this.#options.name}: pool is closed`);
    let entry = this.#entries.get(tenantId);
    if (entry) {
      this.#entries.delete(tenantId);
      this.#entries.set(tenantId, entry);
    } else {
      entry = this.#open(tenantId);
    }
    entry.leases++;
    entry.lastUsed = this.#now();
    let resource: R;
    try {
      resource = await entry.ready;
    } catch (error) {
      entry.leases--;
      throw error;
    }
    let released = false;
    const held = entry;
    return {
      tenantId,
      resource,
      release: () => {
        if (released) return;
        released = true;
        this.#release(held);
      },
    };
  }

  /** Runs `work` with the tenant's resource leased for its duration. */
  async use<T>(tenantId: string, work: (resource: R) => Promise<T>): Promise<T> {
    const lease = await this.acquire(tenantId);
    try {
      return await work(lease.resource);
    } finally {
      lease.release();
    }
  }

  /** Takes the tenant's entry out (removed, suspended, rotated credentials); resolves once it is disposed. */
  async evict(tenantId: string): Promise<void> {
    const entry = this.#entries.get(tenantId);
    if (!entry) return;
    await this.#remove(entry, 'evicted');
  }

  /** Evicts every entry no lease holds that has been unused for the idle timeout; resolves with how many. */
  async sweepIdle(): Promise<number> {
    const cutoff = this.#now() - this.#options.idleTimeoutMs;
    const idle = [...this.#entries.values()].filter((e) => e.leases === 0 && e.resource !== undefined && e.lastUsed <= cutoff);
    await Promise.all(idle.map((e) => this.#remove(e, 'idle')));
    return idle.length;
  }

  /** Refuses new acquires and disposes everything, leased entries once released. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await Promise.all([...this.#entries.values()].map((e) => this.#remove(e, 'closed')));
  }

  #open(tenantId: string): Entry<R> {
    this.#makeRoom();
    const entry: Entry<R> = {
      tenantId,
      leases: 0,
      lastUsed: this.#now(),
      ready: this.#options.open(tenantId).then(
        (resource) => {
          this.#opened++;
          entry.resource = resource;
          return resource;
        },
        (error: unknown) => {
          // A failed open is not kept: the next acquire tries again.
          if (this.#entries.get(tenantId) === entry) this.#entries.delete(tenantId);
          throw error;
        },
      ),
    };
    // Waiters handle the rejection; this keeps an open nobody awaits any more from being "unhandled".
    entry.ready.catch(() => undefined);
    this.#entries.set(tenantId, entry);
    return entry;
  }

  /** Evicts least recently used, unleased, open entries until a new one fits under the cap. */
  #makeRoom(): void {
    let excess = this.#entries.size + 1 - this.#options.maxTenants;
    if (excess <= 0) return;
    for (const entry of this.#entries.values()) {
      if (excess <= 0) break;
      if (entry.leases > 0 || entry.resource === undefined) continue;
      excess--;
      void this.#remove(entry, 'lru');
    }
  }

  #release(entry: Entry<R>): void {
    entry.leases--;
    entry.lastUsed = this.#now();
    if (entry.leases === 0 && entry.doomed && entry.resource !== undefined) void this.#finish(entry);
  }

  /** Takes the entry out of the pool; it is disposed now, or once its last lease is released. */
  #remove(entry: Entry<R>, reason: TenantPoolDisposeReason): Promise<void> {
    if (this.#entries.get(entry.tenantId) === entry) this.#entries.delete(entry.tenantId);
    if (entry.disposal) return entry.disposal;
    entry.doomed = reason;
    entry.disposal = new Promise<void>((resolve) => (entry.resolveDisposal = resolve));
    if (entry.resource !== undefined) {
      if (entry.leases === 0) void this.#finish(entry);
    } else {
      // Still opening: disposed once open (when nobody holds it), or nothing to dispose if it failed.
      entry.ready.then(
        () => {
          if (entry.leases === 0) void this.#finish(entry);
        },
        () => entry.resolveDisposal?.(),
      );
    }
    return entry.disposal;
  }

  async #finish(entry: Entry<R>): Promise<void> {
    if (entry.finished || entry.resource === undefined || entry.doomed === undefined) return;
    entry.finished = true;
    this.#disposed[entry.doomed]++;
    try {
      await this.#options.dispose(entry.tenantId, entry.resource, entry.doomed);
    } catch (error) {
      this.#options.onDisposeError?.(entry.tenantId, error);
    } finally {
      entry.resolveDisposal?.();
    }
  }
}
