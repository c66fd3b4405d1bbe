import type { MappedFields } from '@fetcher/engine';
import type { JobFilters, JobProgress } from '@fetcher/contracts';

/** The job as the Manager sees it: the request it was created from plus its lifecycle fields. */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';

export type { JobFilters, JobProgress };

export type JobMetadata = Readonly<Record<string, unknown>>;

export interface Job {
  readonly id: string;
  readonly status: JobStatus;
  readonly mappedFields: MappedFields;
  /** Absent when the request had none left after the clean-up. */
  readonly filters?: JobFilters;
  readonly metadata: JobMetadata;
  readonly requestHash: string;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly resultPath?: string;
  readonly resultHmac?: string;
  readonly dispatchedAt: Date | null;
  readonly dispatchAttempts: number;
  readonly progress?: JobProgress;
}

/** The error text stored on a job whose message never reached the broker. */
export const PUBLISH_FAILED_ERROR = 'process failed: unable to publish';

export function isActive(status: JobStatus): boolean {
  return status === 'pending' || status === 'processing';
}
