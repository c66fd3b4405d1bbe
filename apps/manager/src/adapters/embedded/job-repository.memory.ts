import type { TenantContext } from '@fetcher/engine';
import type { JobTable, StoredJob } from '@fetcher/contracts';
import { isActive, type Job } from '../../jobs/job';
import type { CreateOutcome, DispatchClaim, InsertOutcome, JobListQuery, JobRepository, RetryOutcome, StaleClaim, StaleJob } from '../../ports/job-repository.port';

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

  /** A scan: the embedded table holds one machine's jobs. */
  list(_tenant: TenantContext, query: JobListQuery): Promise<Job[]> {
    const from = query.createdFrom?.getTime();
    const to = query.createdTo?.getTime();
    const after = query.after;
    const jobs = this.table
      .all()
      .filter((j) => {
        const at = j.createdAt.getTime();
        if (query.source !== undefined && j.metadata.source !== query.source) return false;
        if (query.statuses !== undefined && !query.statuses.includes(j.status)) return false;
        if (query.configName !== undefined && !Object.hasOwn(j.mappedFields, query.configName)) return false;
        if ((from !== undefined && at < from) || (to !== undefined && at >= to)) return false;
        return after === undefined || listOrder(j, after) > 0;
      })
      .sort(listOrder)
      .slice(0, query.limit);
    return Promise.resolve(jobs.map(toJob));
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
      ...(job.incremental !== undefined ? { incremental: job.incremental } : {}),
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

  async cancelPending(_tenant: TenantContext, id: string, at: Date, canceledEvent: string): Promise<boolean> {
    const job = this.table.get(id);
    if (!job || job.status !== 'pending') return false;
    job.status = 'canceled';
    job.completedAt = at;
    job.dispatchLockUntil = null;
    // The Worker's outbox marker, as markDispatchFailed writes it: the embedded Worker's repairer sends the event.
    job.metadata = { ...job.metadata, terminalEventPending: true, terminalEventStatus: 'canceled', terminalEventPayload: canceledEvent };
    await this.table.persist(id);
    return true;
  }

  async requestCancel(_tenant: TenantContext, id: string, at: Date): Promise<Job | undefined> {
    const job = this.table.get(id);
    if (!job) return undefined;
    if (job.status === 'processing' && job.cancelRequestedAt === undefined) {
      job.cancelRequestedAt = at;
      await this.table.persist(id);
    }
    return toJob(job);
  }

  /** Checks, link and store in one synchronous step, as the other writes here. */
  async insertRetry(_tenant: TenantContext, retry: Job & { readonly retryOf: string }): Promise<RetryOutcome> {
    const original = this.table.get(retry.retryOf);
    if (!original) return { kind: 'not_found' };
    const earlier = original.retriedBy !== undefined ? this.table.get(original.retriedBy) : undefined;
    if (earlier) return { kind: 'retried_already', retry: toJob(earlier) };
    if (original.status !== 'failed' && original.status !== 'canceled') return { kind: 'not_retryable', status: original.status };
    if (this.table.all().some((j) => j.requestHash === retry.requestHash && isActive(j.status))) return { kind: 'duplicate_active' };
    original.retriedBy = retry.id;
    const stored = this.#add(retry);
    await Promise.all([stored, this.table.persist(original.id)]);
    return { kind: 'created' };
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

/** The job list's order: newest first, then by id descending (ids are lower-case canonical UUIDs). */
function listOrder(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
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
    ...(job.incremental !== undefined ? { incremental: job.incremental } : {}),
    metadata,
    requestHash: job.requestHash,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    ...(job.resultPath !== undefined ? { resultPath: job.resultPath } : {}),
    ...(job.resultHmac !== undefined ? { resultHmac: job.resultHmac } : {}),
    ...(job.cursors !== undefined ? { cursors: job.cursors } : {}),
    ...(job.resultStats !== undefined ? { resultStats: job.resultStats } : {}),
    dispatchedAt: job.dispatchedAt,
    dispatchAttempts: job.dispatchAttempts,
    ...(job.progress !== undefined ? { progress: job.progress } : {}),
    ...(job.cancelRequestedAt !== undefined ? { cancelRequestedAt: job.cancelRequestedAt } : {}),
    ...(job.retryOf !== undefined ? { retryOf: job.retryOf } : {}),
    ...(job.retriedBy !== undefined ? { retriedBy: job.retriedBy } : {}),
  };
}
