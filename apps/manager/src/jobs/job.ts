import type { MappedFields } from '@fetcher/engine';
import type { JobCursors, JobFilters, JobIncremental, JobProgress, JobResultStats } from '@fetcher/contracts';

/** The job as the Manager sees it: the request it was created from plus its lifecycle fields. */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';

/** Every status, in lifecycle order (the job list's `status` filter accepts these). */
export const JOB_STATUSES: readonly JobStatus[] = Object.freeze(['pending', 'processing', 'completed', 'failed', 'canceled']);

export type { JobCursors, JobFilters, JobIncremental, JobProgress, JobResultStats };

export type JobMetadata = Readonly<Record<string, unknown>>;

export interface Job {
  readonly id: string;
  readonly status: JobStatus;
  readonly mappedFields: MappedFields;
  /** Absent when the request had none left after the clean-up. */
  readonly filters?: JobFilters;
  /** Only for an incremental request: datasource -> table -> its incremental choice, as sent. */
  readonly incremental?: JobIncremental;
  readonly metadata: JobMetadata;
  readonly requestHash: string;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly resultPath?: string;
  readonly resultHmac?: string;
  /** Set by the Worker when an incremental job completes: per table, the next request's `after`. */
  readonly cursors?: JobCursors;
  /** Set by the Worker with `completed`: the result's size before encryption and its rows. */
  readonly resultStats?: JobResultStats;
  readonly dispatchedAt: Date | null;
  readonly dispatchAttempts: number;
  readonly progress?: JobProgress;
  /** When a cancel was asked while the job was processing; the Worker holding the lease stops it. */
  readonly cancelRequestedAt?: Date;
  /** The failed or canceled job this one retries, and the job that retried this one. */
  readonly retryOf?: string;
  readonly retriedBy?: string;
}

/** The error text stored on a job whose message never reached the broker. */
export const PUBLISH_FAILED_ERROR = 'process failed: unable to publish';

export function isActive(status: JobStatus): boolean {
  return status === 'pending' || status === 'processing';
}

/** Terminal and not retried-into-success: the states a retry may start from. */
export function isRetryable(status: JobStatus): boolean {
  return status === 'failed' || status === 'canceled';
}
