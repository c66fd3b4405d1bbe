import type { TenantContext } from '@fetcher/engine';
import type { JobControlPublisher } from '../../ports/job-control-publisher.port';

export type CancelListener = (jobId: string, requestedAt: Date) => void;

/**
 * Job control inside one process (the standalone service): the embedded Worker shares the job table,
 * so its lease renewal sees `cancelRequestedAt` anyway; a Worker that wants the signal at once
 * subscribes here. With no subscriber, publishing is a no-op.
 */
export class InProcessJobControlPublisher implements JobControlPublisher {
  readonly #listeners = new Set<CancelListener>();

  /** Adds a listener; the returned function removes it. */
  onCancel(listener: CancelListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publishCancel(_tenant: TenantContext, jobId: string, requestedAt: Date): Promise<void> {
    for (const listener of this.#listeners) listener(jobId, requestedAt);
    return Promise.resolve();
  }
}
