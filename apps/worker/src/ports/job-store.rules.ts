import { isTerminalStatus, type JobLease, type JobProgress, type JobRecord, type JobStatus, type TerminalGuard } from './job-store.port';

/**
 * The conditions of the job store port as predicates, for stores that keep jobs in memory and check
 * them there (the standalone service's, the unit tests'). The MongoDB adapter states the same
 * conditions as query filters; these keep every in-memory store agreeing with it and with each other.
 */
export interface JobState {
  readonly id: string;
  readonly status: JobStatus;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly mappedFields?: unknown;
  readonly filters?: unknown;
  readonly incremental?: unknown;
  readonly createdAt: Date;
  readonly completedAt?: Date | null;
  readonly lease?: JobLease;
  readonly progress?: Partial<JobProgress> & { readonly tablesDone: number; readonly rowsSoFar: number };
  readonly cancelRequestedAt?: Date;
}

/**
 * What the delivery policy runs (`decideDelivery` says `acquire`): no terminal event pending, and a
 * pending job, or a processing one whose lease expired or that has none.
 */
export function canAcquire(job: JobState, now: Date): boolean {
  if (job.metadata.terminalEventPending === true) return false;
  return job.status === 'pending' || (job.status === 'processing' && (!job.lease || job.lease.expiresAt.getTime() < now.getTime()));
}

/** The job is processing under exactly this lease. */
export function holdsLease<J extends JobState>(job: J, token: string): job is J & { readonly lease: JobLease } {
  return job.status === 'processing' && job.lease?.token === token;
}

/**
 * Whether a terminal write with this guard may replace the job's state. The reaper's `observed`
 * guard without a token matches a processing job that still has no lease.
 */
export function guardAdmits(job: JobState, guard: TerminalGuard): boolean {
  return guard.kind === 'pending' ? job.status === 'pending' : job.status === 'processing' && job.lease?.token === guard.token;
}

/** Terminal, with its event not yet confirmed as published. */
export function awaitsEvent(job: JobState): boolean {
  return job.metadata.terminalEventPending === true && isTerminalStatus(job.status);
}

/** Processing with a lease that expired more than one TTL ago, or leaseless and older than `leaselessAgeMs`. */
export function isAbandoned(job: JobState, now: Date, ttlMs: number, leaselessAgeMs: number): boolean {
  if (job.status !== 'processing') return false;
  return job.lease ? job.lease.expiresAt.getTime() < now.getTime() - ttlMs : job.createdAt.getTime() < now.getTime() - leaselessAgeMs;
}

/** What a store hands out: a deep copy, so a caller cannot change the stored job. */
export function jobRecordOf(job: JobState): JobRecord {
  return structuredClone({
    id: job.id,
    status: job.status,
    metadata: job.metadata,
    ...(job.mappedFields !== undefined ? { mappedFields: job.mappedFields } : {}),
    ...(job.filters !== undefined ? { filters: job.filters } : {}),
    ...(job.incremental !== undefined ? { incremental: job.incremental } : {}),
    createdAt: job.createdAt,
    ...(job.completedAt ? { completedAt: job.completedAt } : {}),
    ...(job.lease ? { lease: job.lease } : {}),
    ...(job.progress?.updatedAt ? { progress: { tablesDone: job.progress.tablesDone, rowsSoFar: job.progress.rowsSoFar, updatedAt: job.progress.updatedAt } } : {}),
    ...(job.cancelRequestedAt ? { cancelRequestedAt: job.cancelRequestedAt } : {}),
  });
}
