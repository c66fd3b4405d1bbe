import type { TenantContext } from '@fetcher/engine';
import type { JobTable, StoredJob } from '@fetcher/contracts';
import { isActive, type Job } from '../../jobs/job';
import type { CreateOutcome, DispatchClaim, InsertOutcome, JobRepository, StaleClaim, StaleJob } from '../../ports/job-repository.port';

/** The Worker's outbox marker lives in `metadata`, as in MongoDB; the Manager never shows it. */
const OUTBOX_KEYS = new Set(['terminalEventPending', 'terminalEventStatus', 'terminalEventPayload']);

/**
 * The Manager's embedded job repository, over the job table it shares with the embedded Worker. Single-tenant: the tenant context
 * names no separate namespace. The active-hash rule is checked and applied in one synchronous step,
 * which is what the unique partial index guarantees in MongoDB.
 */
export class MemoryJobRepository implements JobRepository {
  constructor(private readonly table: JobTable) {}

  findById(_tenant: TenantContext, id: string): Promise<Job | undefined> {
    const job = this.table.get(id);
    return Promise.resolve(job ? toJob(job) : undefined);
  }

  findNewestByHashSince(_tenant: TenantContext, hash: string, since: Date): Promise<Job | undefined> {
    return Promise.resolve(this.#newest((j) => j.requestHash === hash && j.createdAt.getTime() >= since.getTime()));
  }

  findNewestActiveByHash(_tenant: TenantContext, hash: string): Promise<Job | undefined> {
    return Promise.resolve(this.#newest((j) => j.requestHash === hash && isActive(j.status)));
  }

  async insert(_tenant: TenantContext, job: Job): Promise<InsertOutcome> {
    if (isActive(job.status) && this.table.all().some((j) => j.requestHash === job.requestHash && isActive(j.status))) {
      return 'duplicate_active';
    }
    await this.#add(job);
    return 'inserted';
  }

  /**
   * The look-up and the store run in one synchronous step (the table's `add` records the job before
   * its first await), so no job can arrive or finish in between: a job the Worker completed a moment
   * ago is reused, as the window says, instead of being raced by a second one.
   */
  async insertUnlessReusable(_tenant: TenantContext, job: Job, reusableSince: Date): Promise<CreateOutcome> {
    const sameHash = (j: StoredJob) => j.requestHash === job.requestHash;
    const active = this.#newest((j) => sameHash(j) && isActive(j.status));
    const recent = active ?? this.#newest((j) => sameHash(j) && j.createdAt.getTime() >= reusableSince.getTime());
    if (recent && recent.status !== 'failed') return { created: false, existing: recent };
    await this.#add(job);
    return { created: true };
  }

  #add(job: Job): Promise<void> {
    return this.table.add({
      id: job.id,
      status: job.status,
      mappedFields: job.mappedFields,
      ...(job.filters !== undefined ? { filters: job.filters } : {}),
      metadata: { ...job.metadata },
      requestHash: job.requestHash,
      createdAt: job.createdAt,
      completedAt: job.completedAt,
      dispatchedAt: job.dispatchedAt,
      dispatchAttempts: job.dispatchAttempts,
      dispatchLockUntil: null,
      datasources: Object.keys(job.mappedFields).sort(),
      ...(job.retryOf !== undefined ? { retryOf: job.retryOf } : {}),
    });
  }

  async markDispatched(_tenant: TenantContext, id: string, at: Date): Promise<void> {
    const job = this.table.get(id);
    if (!job) return;
    job.dispatchedAt = at;
    job.dispatchAttempts += 1;
    job.dispatchLockUntil = null;
    await this.table.persist(id);
  }

  async markDispatchFailed(_tenant: TenantContext, id: string, error: string, at: Date, failedEvent?: string): Promise<boolean> {
    const job = this.table.get(id);
    if (!job || job.status !== 'pending') return false;
    job.status = 'failed';
    job.completedAt = at;
    // The Worker's outbox marker: the embedded Worker's repairer sends the stored event.
    const marker = failedEvent === undefined ? {} : { terminalEventPending: true, terminalEventStatus: 'failed', terminalEventPayload: failedEvent };
    job.metadata = { ...job.metadata, error, ...marker };
    job.dispatchLockUntil = null;
    await this.table.persist(id);
    return true;
  }

  async claimUndispatched(_tenant: TenantContext, claim: DispatchClaim): Promise<Job | undefined> {
    const chosen = this.table
      .all()
      .filter(
        (j) =>
          j.status === 'pending' &&
          j.dispatchedAt === null &&
          j.createdAt.getTime() < claim.createdBefore.getTime() &&
          (j.dispatchLockUntil === null || j.dispatchLockUntil.getTime() < claim.now.getTime()),
      )
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0];
    if (!chosen) return undefined;
    const before = toJob(chosen);
    chosen.dispatchAttempts += 1;
    chosen.dispatchLockUntil = claim.lockUntil;
    await this.table.persist(chosen.id);
    return before;
  }

  async claimStale(_tenant: TenantContext, claim: StaleClaim): Promise<StaleJob | undefined> {
    const chosen = this.table
      .all()
      .filter(
        (j) =>
          j.status === 'pending' &&
          j.dispatchedAt !== null &&
          j.dispatchedAt.getTime() < claim.dispatchedBefore.getTime() &&
          (j.dispatchLockUntil === null || j.dispatchLockUntil.getTime() < claim.now.getTime()),
      )
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0];
    if (!chosen) return undefined;
    const before = { job: toJob(chosen), redispatches: chosen.redispatches ?? 0 };
    chosen.redispatches = before.redispatches + 1;
    chosen.dispatchLockUntil = claim.lockUntil;
    await this.table.persist(chosen.id);
    return before;
  }

  #newest(match: (job: StoredJob) => boolean): Job | undefined {
    const found = this.table
      .all()
      .filter(match)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
    return found ? toJob(found) : undefined;
  }
}

/**
 * A copy the caller may keep: the table changes its records in place, but only their top-level
 * fields and by replacing whole values (metadata, progress, lease), so a shallow copy never shares
 * anything that later changes. (A deep clone per read cost several percent of a GET.)
 */
function toJob(job: StoredJob): Job {
  const metadata: Record<string, unknown> = {};
  for (const key of Object.keys(job.metadata)) if (!OUTBOX_KEYS.has(key)) metadata[key] = job.metadata[key];
  return {
    id: job.id,
    status: job.status,
    mappedFields: job.mappedFields,
    ...(job.filters !== undefined ? { filters: job.filters } : {}),
    metadata,
    requestHash: job.requestHash,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    ...(job.resultPath !== undefined ? { resultPath: job.resultPath } : {}),
    ...(job.resultHmac !== undefined ? { resultHmac: job.resultHmac } : {}),
    dispatchedAt: job.dispatchedAt,
    dispatchAttempts: job.dispatchAttempts,
    ...(job.progress !== undefined ? { progress: job.progress } : {}),
    ...(job.cancelRequestedAt !== undefined ? { cancelRequestedAt: job.cancelRequestedAt } : {}),
    ...(job.retryOf !== undefined ? { retryOf: job.retryOf } : {}),
    ...(job.retriedBy !== undefined ? { retriedBy: job.retriedBy } : {}),
  };
}
