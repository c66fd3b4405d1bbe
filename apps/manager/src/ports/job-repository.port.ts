import type { TenantContext } from '@fetcher/engine';
import type { Job, JobStatus } from '../jobs/job';

export type InsertOutcome = 'inserted' | 'duplicate_active';

/**
 * What creating a job came to: stored, or not stored because an identical request's job can be
 * reused, or `contended` when the hash kept changing hands (active jobs with it were stored and
 * finished again and again under our attempts), which a caller reports rather than loops on.
 */
export type CreateOutcome = { readonly created: true } | { readonly created: false; readonly existing: Job } | { readonly created: false; readonly contended: true };

/**
 * What retrying a job came to: the retry stored and linked; the job's earlier retry (it was retried
 * already); an identical request active (nothing stored); or the job in a status that is not retried.
 */
export type RetryOutcome =
  | { readonly kind: 'created' }
  | { readonly kind: 'retried_already'; readonly retry: Job }
  | { readonly kind: 'duplicate_active' }
  | { readonly kind: 'not_retryable'; readonly status: JobStatus }
  | { readonly kind: 'not_found' };

/** What the dispatch sweep needs to claim a job nobody confirmed as published. */
export interface DispatchClaim {
  /** Only jobs created before this instant are candidates. */
  readonly createdBefore: Date;
  readonly now: Date;
  /** The claim holds until then; another replica cannot take the job before. */
  readonly lockUntil: Date;
}

/** What the dispatch sweep needs to claim a dispatched job that stayed pending far longer than its message can live. */
export interface StaleClaim {
  /** Only jobs last dispatched before this instant are candidates. */
  readonly dispatchedBefore: Date;
  readonly now: Date;
  /** The claim holds until then; another replica cannot take the job before. */
  readonly lockUntil: Date;
}

/** A claimed stale job and how many times the sweep had re-dispatched it before this claim. */
export interface StaleJob {
  readonly job: Job;
  readonly redispatches: number;
}

/** Where a page of the job list ends: the last job it showed. */
export interface JobListPosition {
  readonly createdAt: Date;
  readonly id: string;
}

/** One page of the job list: every filter given must hold; absent filters do not filter. */
export interface JobListQuery {
  /** `metadata.source` equals it (the caller's product). */
  readonly source?: string;
  readonly statuses?: readonly JobStatus[];
  /** Inclusive. */
  readonly createdFrom?: Date;
  /** Exclusive. */
  readonly createdTo?: Date;
  /** A datasource the job maps. */
  readonly configName?: string;
  /** Only jobs strictly after this position in the list's order. */
  readonly after?: JobListPosition;
  readonly limit: number;
}

/**
 * The job collection. It is also the dedup store: the active-hash rule is enforced by the
 * repository itself (a unique constraint), not by a read before the write.
 */
export interface JobRepository {
  findById(tenant: TenantContext, id: string): Promise<Job | undefined>;
  /**
   * At most `limit` jobs matching the query, newest first: by `createdAt` descending, then by id
   * descending. MUST be a keyset read (jobs stored while a client pages never shift later pages)
   * and SHOULD cost about `limit` index entries.
   */
  list(tenant: TenantContext, query: JobListQuery): Promise<Job[]>;
  /** The newest job with this hash created at or after `since`, in any status. */
  findNewestByHashSince(tenant: TenantContext, hash: string, since: Date): Promise<Job | undefined>;
  /** The newest `pending`/`processing` job with this hash, however old. */
  findNewestActiveByHash(tenant: TenantContext, hash: string): Promise<Job | undefined>;
  /**
   * Stores a new `pending` job. MUST answer `duplicate_active` (and store nothing) while another
   * active job has the same request hash, atomically with respect to concurrent inserts.
   */
  insert(tenant: TenantContext, job: Job): Promise<InsertOutcome>;
  /**
   * Stores `job` (a new `pending` one) unless a job with its hash is reusable, and then answers that
   * job and stores nothing. Reusable means: the newest active job with the hash, however old; else
   * the newest job created at or after `reusableSince`, unless it failed. MUST hold against
   * concurrent calls and concurrent status changes: it never stores a second active job, and it
   * answers (rather than stores) whenever a job was reusable when the call began or is active when
   * it stores, including one that finished between those two moments.
   */
  insertUnlessReusable(tenant: TenantContext, job: Job, reusableSince: Date): Promise<CreateOutcome>;
  /**
   * Cancels a job only while it is `pending`: `canceled`, `completedAt` set, its hash freed, and the
   * `job.canceled` body stored in the job's outbox marker (the Worker's repairer sends it). Answers
   * whether it changed the job. A Worker that later receives the job's message finds it terminal.
   */
  cancelPending(tenant: TenantContext, id: string, at: Date, canceledEvent: string): Promise<boolean>;
  /**
   * Stamps `cancelRequestedAt` on a `processing` job that has none. Answers the job as it is after
   * the call (a first or an earlier request stamped, or the job in another status by now), or
   * `undefined` when it does not exist.
   */
  requestCancel(tenant: TenantContext, id: string, at: Date): Promise<Job | undefined>;
  /**
   * Stores `retry` (a new `pending` job with `retryOf` set) for the `failed` or `canceled` job it
   * names, and sets that job's `retriedBy`: a job is retried at most once, concurrent calls
   * included. No reuse window applies (that is what a retry bypasses), but the active-hash rule
   * does: while an identical request is active nothing is stored.
   */
  insertRetry(tenant: TenantContext, retry: Job & { readonly retryOf: string }): Promise<RetryOutcome>;
  /** Records a confirmed publish: sets `dispatchedAt`, counts the attempt, releases any sweep claim. */
  markDispatched(tenant: TenantContext, id: string, at: Date): Promise<void>;
  /**
   * Fails a job that never reached the Worker, only while it is still `pending` (a Worker that
   * already took it owns its outcome). Answers whether it changed the job. With `failedEvent` (the
   * `job.failed` body), the write also stores that event in the job's outbox marker
   * (`metadata.terminalEventPending/Status/Payload`), from which the Worker's repairer sends it.
   */
  markDispatchFailed(tenant: TenantContext, id: string, error: string, at: Date, failedEvent?: string): Promise<boolean>;
  /**
   * Atomically claims the oldest `pending` job that has no `dispatchedAt`, was created before
   * `createdBefore` and is not claimed by anyone (its lock is absent or past), counting one more
   * dispatch attempt. Answers the job as it was before the claim's increment, or `undefined`.
   */
  claimUndispatched(tenant: TenantContext, claim: DispatchClaim): Promise<Job | undefined>;
  /**
   * Atomically claims the oldest `pending` job whose `dispatchedAt` is before `dispatchedBefore` and
   * that is not claimed by anyone, counting one more re-dispatch. Answers the job and its re-dispatch
   * count as they were before the claim, or `undefined`.
   */
  claimStale(tenant: TenantContext, claim: StaleClaim): Promise<StaleJob | undefined>;
}
export const JOB_REPOSITORY = Symbol('JobRepository');
