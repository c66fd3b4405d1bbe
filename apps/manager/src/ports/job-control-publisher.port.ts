import type { TenantContext } from '@fetcher/engine';

/**
 * Tells every Worker replica that a processing job was asked to stop; the one holding its lease
 * acts on it. Best effort on top of `cancel_requested_at`, which the lease renewal reads: a message
 * lost with no Worker listening changes when the job stops, not whether it does. MUST resolve only
 * once the broker has confirmed the message.
 */
export interface JobControlPublisher {
  publishCancel(tenant: TenantContext, jobId: string, requestedAt: Date): Promise<void>;
}
export const JOB_CONTROL_PUBLISHER = Symbol('JobControlPublisher');
