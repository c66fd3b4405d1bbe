import type { TenantMongo, TenantPool } from '@fetcher/platform';
import type { AcquiredJob, JobLease, JobProgress, JobRecord, JobStore, LeaseRenewal, TerminalGuard, TerminalWrite } from '../../ports/job-store.port';
import type { TenantScope } from '../../tenancy/tenant-scope';
import { MongoJobStore } from '../mongo/job-store.mongo';

/**
 * The job store of multi-tenant mode: the `job` collection of the tenant in scope, in that tenant's
 * own database from the per-tenant pool. Outside a tenant's scope every call fails; there is no
 * shared database to fall back to. Each call leases the tenant's client for its own duration only,
 * so the pool may evict idle tenants between calls (a cap below the tenant count).
 */
export class TenantJobStore implements JobStore {
  /** One store per open client, so its lazily created indexes are asked for once per connection. */
  readonly #stores = new WeakMap<TenantMongo, MongoJobStore>();

  constructor(
    private readonly scope: TenantScope,
    private readonly mongo: TenantPool<TenantMongo>,
  ) {}

  find(jobId: string): Promise<JobRecord | undefined> {
    return this.#use((s) => s.find(jobId));
  }

  acquire(jobId: string, lease: JobLease, now: Date): Promise<AcquiredJob | undefined> {
    return this.#use((s) => s.acquire(jobId, lease, now));
  }

  renew(jobId: string, token: string, expiresAt: Date): Promise<LeaseRenewal> {
    return this.#use((s) => s.renew(jobId, token, expiresAt));
  }

  writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    return this.#use((s) => s.writeProgress(jobId, token, progress));
  }

  writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    return this.#use((s) => s.writeTerminal(jobId, guard, write));
  }

  clearEventMarker(jobId: string): Promise<void> {
    return this.#use((s) => s.clearEventMarker(jobId));
  }

  pendingEvents(limit: number): Promise<JobRecord[]> {
    return this.#use((s) => s.pendingEvents(limit));
  }

  abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]> {
    return this.#use((s) => s.abandoned(now, ttlMs, leaselessAgeMs));
  }

  async #use<T>(work: (store: MongoJobStore) => Promise<T>): Promise<T> {
    const tenantId = this.scope.require();
    return this.mongo.use(tenantId, (mongo) => {
      let store = this.#stores.get(mongo);
      if (!store) {
        store = new MongoJobStore(mongo.db);
        this.#stores.set(mongo, store);
      }
      return work(store);
    });
  }
}
