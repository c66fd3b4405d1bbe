import type { TenantSummary } from '@fetcher/platform';

/** What the reconciler drives: the consumer registry. */
export interface ReconciledConsumers {
  ensureStarted(tenantId: string): Promise<boolean>;
  removeTenant(tenantId: string): Promise<void>;
  known(): string[];
}

export type ReconcileResult = 'ok' | 'tm_unreachable';

export interface TenantReconcilerOptions {
  /** `GET /v1/tenants/active?service=fetcher`, bounded by the signal. */
  readonly listActive: (signal: AbortSignal) => Promise<readonly TenantSummary[]>;
  readonly consumers: ReconciledConsumers;
  /** `MULTI_TENANT_RECONCILE_INTERVAL_SEC` (60 s). */
  readonly intervalMs: number;
  readonly listTimeoutMs?: number;
  /** A known tenant missing from this many successful lists in a row is removed. Default 3. */
  readonly absentPasses?: number;
  /** The first pass is tried this many times (exponential backoff with jitter, base 1 s). Default 4. */
  readonly initialAttempts?: number;
  readonly initialBaseDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly onPass?: (result: ReconcileResult, durationSec: number) => void;
  readonly logger: { warn(message: string): void };
}

/**
 * Keeps the consumers in line with the tenant-manager's list of active tenants: the initial sync,
 * then every interval. It starts every listed tenant (missed events, failed starts), and removes a
 * known tenant only after it has been absent from `absentPasses` successful lists in a row, so a
 * list that briefly leaves one out stops nothing. A list that fails stops nothing either.
 */
export class TenantReconciler {
  readonly #absent = new Map<string, number>();
  readonly #sleep: (ms: number) => Promise<void>;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<ReconcileResult> | undefined;
  #stopped = false;

  constructor(private readonly options: TenantReconcilerOptions) {
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()));
  }

  /** The initial sync (retried a few times), then the periodic passes. Resolves after the initial sync. */
  async start(): Promise<ReconcileResult> {
    const attempts = this.options.initialAttempts ?? 4;
    const base = this.options.initialBaseDelayMs ?? 1_000;
    let result: ReconcileResult = 'tm_unreachable';
    for (let attempt = 1; attempt <= attempts && !this.#stopped; attempt++) {
      result = await this.pass();
      if (result === 'ok' || attempt === attempts) break;
      await this.#sleep(Math.floor(base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)));
    }
    if (!this.#stopped) {
      this.#timer = setInterval(() => void this.pass(), this.options.intervalMs);
      this.#timer.unref();
    }
    return result;
  }

  /** One pass; passes never overlap (a call during one shares it). */
  pass(): Promise<ReconcileResult> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** No further passes; resolves once a pass in progress has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }

  async #pass(): Promise<ReconcileResult> {
    if (this.#stopped) return 'ok';
    const started = performance.now();
    let active: readonly TenantSummary[];
    try {
      active = await this.options.listActive(AbortSignal.timeout(this.options.listTimeoutMs ?? 5_000));
    } catch (error) {
      this.options.logger.warn(`tenant reconcile: the tenant-manager list failed (${error instanceof Error ? error.name : 'error'}); nothing stopped`);
      this.options.onPass?.('tm_unreachable', (performance.now() - started) / 1000);
      return 'tm_unreachable';
    }
    const listed = new Set(active.map((t) => t.id).filter((id): id is string => typeof id === 'string' && id !== ''));
    const limit = this.options.absentPasses ?? 3;
    const removals: Promise<void>[] = [];
    for (const tenantId of this.options.consumers.known()) {
      if (listed.has(tenantId)) continue;
      const misses = (this.#absent.get(tenantId) ?? 0) + 1;
      if (misses < limit) {
        this.#absent.set(tenantId, misses);
        continue;
      }
      this.#absent.delete(tenantId);
      removals.push(this.options.consumers.removeTenant(tenantId));
    }
    for (const tenantId of listed) this.#absent.delete(tenantId);
    // One tenant's failure to start is that tenant's (the registry retries it); the others go on.
    await Promise.allSettled([...removals, ...[...listed].map((id) => this.options.consumers.ensureStarted(id))]);
    this.options.onPass?.('ok', (performance.now() - started) / 1000);
    return 'ok';
  }
}
