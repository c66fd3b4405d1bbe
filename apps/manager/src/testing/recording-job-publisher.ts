import type { TenantContext } from '@fetcher/engine';
import type { Job } from '../jobs/job';
import type { JobPublisher } from '../ports/job-publisher.port';

/** Records what it was asked to publish; rejects with `failWith` while that is set. */
export class RecordingJobPublisher implements JobPublisher {
  readonly published: { tenant: TenantContext; job: Job; requestId: string }[] = [];
  failWith?: Error;
  /** Runs before each publish, e.g. to kill the caller half-way. */
  beforePublish?: (job: Job) => void;

  async publishExtractionRequested(tenant: TenantContext, job: Job, requestId: string): Promise<void> {
    await Promise.resolve();
    this.beforePublish?.(job);
    if (this.failWith) throw this.failWith;
    this.published.push({ tenant, job, requestId });
  }
}
