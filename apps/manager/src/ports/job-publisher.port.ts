import type { TenantContext } from '@fetcher/engine';
import type { Job } from '../jobs/job';

/**
 * Hands a stored job to the Worker. MUST resolve only once the broker has confirmed the message
 * as routed to the work queue; anything else (no connection, a nack, a return, a timeout, an open
 * circuit) rejects. `requestId` goes into the message headers for tracing.
 */
export interface JobPublisher {
  publishExtractionRequested(tenant: TenantContext, job: Job, requestId: string): Promise<void>;
}
export const JOB_PUBLISHER = Symbol('JobPublisher');
