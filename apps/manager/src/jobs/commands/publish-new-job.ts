import type { Logger } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import type { Clock } from '../../ports/clock.port';
import type { JobPublisher } from '../../ports/job-publisher.port';
import type { JobRepository } from '../../ports/job-repository.port';
import { PUBLISH_FAILED_ERROR, type Job } from '../job';
import type { DispatchMarks } from './dispatch-marks';

export interface PublishDeps {
  readonly jobs: JobRepository;
  readonly publisher: JobPublisher;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where the `dispatched_at` write goes once the publish is confirmed: after the answer, not before it. */
  readonly marks: DispatchMarks;
}

/**
 * Hands a job just stored to the Worker. Stored first, published second: a crash in between leaves
 * a pending job that the dispatch sweep publishes later, while the other order could run a job
 * nobody stored. A refused publish fails the job and answers 500. A confirmed one resolves at once:
 * the `dispatched_at` write goes on after the answer (`DispatchMarks`), since the answer never
 * depended on it and a missing mark only makes the sweep republish, harmlessly.
 */
export async function publishNewJob({ jobs, publisher, clock, logger, marks }: PublishDeps, tenant: TenantContext, job: Job): Promise<void> {
  try {
    await publisher.publishExtractionRequested(tenant, job, tenant.requestId ?? '');
  } catch (error) {
    logger.error(`publishing job ${job.id} failed: ${describeError(error)}`);
    try {
      await jobs.markDispatchFailed(tenant, job.id, PUBLISH_FAILED_ERROR, clock.now());
    } catch (markError) {
      // The job stays pending and undispatched, so the sweep picks it up; the client still hears of the failure.
      logger.error(`marking job ${job.id} failed after a publish failure failed too: ${describeError(markError)}`);
    }
    throw Errors.internal();
  }
  // The message is out. Without the mark the sweep republishes it, which the Worker's lease makes harmless.
  marks.record(tenant, job.id, clock.now());
}

/** Error names only: driver messages may quote hosts or credentials. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}${'code' in error ? ` (${String((error as { code?: unknown }).code)})` : ''}`;
  return typeof error;
}
