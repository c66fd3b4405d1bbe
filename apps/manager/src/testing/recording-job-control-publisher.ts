import type { TenantContext } from '@fetcher/engine';
import type { JobControlPublisher } from '../ports/job-control-publisher.port';

/** Records the cancels it was asked to publish; rejects with `failWith` while that is set. */
export class RecordingJobControlPublisher implements JobControlPublisher {
  readonly cancels: { tenant: TenantContext; jobId: string; requestedAt: Date }[] = [];
  failWith?: Error;

  async publishCancel(tenant: TenantContext, jobId: string, requestedAt: Date): Promise<void> {
    await Promise.resolve();
    if (this.failWith) throw this.failWith;
    this.cancels.push({ tenant, jobId, requestedAt });
  }
}
