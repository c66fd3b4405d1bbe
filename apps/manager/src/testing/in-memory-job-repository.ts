import type { TenantContext } from '@fetcher/engine';
import { isActive, type Job, type JobStatus } from '../jobs/job';
import type { CreateOutcome, DispatchClaim, InsertOutcome, JobRepository, StaleClaim, StaleJob } from '../ports/job-repository.port';

interface Stored {
  job: Job;
  lockUntil: Date | null;
  redispatches: number;
}

/**
 * The job repository in memory, per tenant, with the same active-hash rule as the Mongo adapter.
 * `failNextWith` makes the next call of the named method reject once.
 */
export class InMemoryJobRepository implements JobRepository {
  readonly #tenants = new Map<string, Map<string, Stored>>();
  failNextWith: Partial<Record<keyof JobRepository, Error>> = {};
  /** Runs just before `insert` or `insertUnlessReusable` looks and stores, to interleave other writes in tests. */
  beforeInsert?: (job: Job) => void;

  findById(tenant: TenantContext, id: string): Promise<Job | undefined> {
    return this.#call('findById', () => this.#jobs(tenant).get(id)?.job);
  }

  findNewestByHashSince(tenant: TenantContext, hash: string, since: Date): Promise<Job | undefined> {
    return this.#call('findNewestByHashSince', () =>
      this.#newest(tenant, (job) => job.requestHash === hash && job.createdAt.getTime() >= since.getTime()),
    );
  }

  findNewestActiveByHash(tenant: TenantContext, hash: string): Promise<Job | undefined> {
    return this.#call('findNewestActiveByHash', () => this.#newest(tenant, (job) => job.requestHash === hash && isActive(job.status)));
  }

  insert(tenant: TenantContext, job: Job): Promise<InsertOutcome> {
    return this.#call('insert', () => {
      this.beforeInsert?.(job);
      const jobs = this.#jobs(tenant);
      if (isActive(job.status) && [...jobs.values()].some((s) => s.job.requestHash === job.requestHash && isActive(s.job.status))) {
        return 'duplicate_active';
      }
      jobs.set(job.id, { job: structuredClone(job), lockUntil: null, redispatches: 0 });
      return 'inserted';
    });
  }

  /** Look-up and store in one synchronous step, so nothing can finish or arrive in between. */
  insertUnlessReusable(tenant: TenantContext, job: Job, reusableSince: Date): Promise<CreateOutcome> {
    return this.#call('insertUnlessReusable', () => {
      this.beforeInsert?.(job);
      const active = this.#newest(tenant, (j) => j.requestHash === job.requestHash && isActive(j.status));
      const recent = active ?? this.#newest(tenant, (j) => j.requestHash === job.requestHash && j.createdAt.getTime() >= reusableSince.getTime());
      if (recent && recent.status !== 'failed') return { created: false, existing: recent };
      this.#jobs(tenant).set(job.id, { job: structuredClone(job), lockUntil: null, redispatches: 0 });
      return { created: true };
    });
  }

  markDispatched(tenant: TenantContext, id: string, at: Date): Promise<void> {
    return this.#call('markDispatched', () => {
      const stored = this.#jobs(tenant).get(id);
      if (!stored) return;
      stored.job = { ...stored.job, dispatchedAt: at, dispatchAttempts: stored.job.dispatchAttempts + 1 };
      stored.lockUntil = null;
    });
  }

  markDispatchFailed(tenant: TenantContext, id: string, error: string, at: Date, failedEvent?: string): Promise<boolean> {
    return this.#call('markDispatchFailed', () => {
      const stored = this.#jobs(tenant).get(id);
      if (!stored || stored.job.status !== 'pending') return false;
      const marker = failedEvent === undefined ? {} : { terminalEventPending: true, terminalEventStatus: 'failed', terminalEventPayload: failedEvent };
      stored.job = { ...stored.job, status: 'failed', completedAt: at, metadata: { ...stored.job.metadata, error, ...marker } };
      stored.lockUntil = null;
      return true;
    });
  }

  claimUndispatched(tenant: TenantContext, claim: DispatchClaim): Promise<Job | undefined> {
    return this.#call('claimUndispatched', () => {
      const candidates = [...this.#jobs(tenant).values()]
        .filter(
          (s) =>
            s.job.status === 'pending' &&
            s.job.dispatchedAt === null &&
            s.job.createdAt.getTime() < claim.createdBefore.getTime() &&
            (s.lockUntil === null || s.lockUntil.getTime() < claim.now.getTime()),
        )
        .sort((a, b) => a.job.createdAt.getTime() - b.job.createdAt.getTime());
      const chosen = candidates[0];
      if (!chosen) return undefined;
      const before = chosen.job;
      chosen.job = { ...before, dispatchAttempts: before.dispatchAttempts + 1 };
      chosen.lockUntil = claim.lockUntil;
      return before;
    });
  }

  claimStale(tenant: TenantContext, claim: StaleClaim): Promise<StaleJob | undefined> {
    return this.#call('claimStale', () => {
      const chosen = [...this.#jobs(tenant).values()]
        .filter(
          (s) =>
            s.job.status === 'pending' &&
            s.job.dispatchedAt !== null &&
            s.job.dispatchedAt.getTime() < claim.dispatchedBefore.getTime() &&
            (s.lockUntil === null || s.lockUntil.getTime() < claim.now.getTime()),
        )
        .sort((a, b) => a.job.createdAt.getTime() - b.job.createdAt.getTime())[0];
      if (!chosen) return undefined;
      const before = { job: chosen.job, redispatches: chosen.redispatches };
      chosen.redispatches += 1;
      chosen.lockUntil = claim.lockUntil;
      return before;
    });
  }

  /** Test helpers: what a Worker would do to a job. */
  setStatus(tenant: TenantContext, id: string, status: JobStatus, at?: Date): void {
    const stored = this.#jobs(tenant).get(id);
    if (!stored) throw new Error(`no job ${id}`);
    stored.job = { ...stored.job, status, completedAt: isActive(status) ? null : (at ?? stored.job.createdAt) };
  }

  all(tenant: TenantContext): Job[] {
    return [...this.#jobs(tenant).values()].map((s) => s.job);
  }

  #newest(tenant: TenantContext, match: (job: Job) => boolean): Job | undefined {
    return [...this.#jobs(tenant).values()]
      .map((s) => s.job)
      .filter(match)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  }

  #jobs(tenant: TenantContext): Map<string, Stored> {
    let jobs = this.#tenants.get(tenant.tenantId);
    if (!jobs) this.#tenants.set(tenant.tenantId, (jobs = new Map<string, Stored>()));
    return jobs;
  }

  async #call<T>(method: keyof JobRepository, run: () => T): Promise<T> {
    await Promise.resolve(); // asynchronous like the real adapter, so interleavings are possible
    const failure = this.failNextWith[method];
    if (failure) {
      delete this.failNextWith[method];
      throw failure;
    }
    return run();
  }
}
