import type { Logger } from '@nestjs/common';
import type { TenantContext } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import type { Clock } from '../../ports/clock.port';
import type { JobPublisher } from '../../ports/job-publisher.port';
import type { JobRepository } from '../../ports/job-repository.port';
import { PUBLISH_FAILED_ERROR, type Job } from '../job';

export interface PublishDeps {
  readonly jobs: JobRepository;
  readonly publisher: JobPublisher;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Hands a job just stored to the Worker. Stored first, published second: a crash in between leaves
 * a pending job that the dispatch sweep publishes later, while the other order could run a job
 * nobody stored. A refused publish fails the job and answers 500.
 */
export async function publishNewJob({ jobs, publisher, clock, logger }: PublishDeps, tenant: TenantContext, job: Job): Promise<void> {
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
  try {
    await jobs.markDispatched(tenant, job.id, clock.now());
  } catch (error) {
    // The message is out. Without the mark the sweep republishes it, which the Worker's lease makes harmless.
    logger.warn(`recording the dispatch of job ${job.id} failed: ${describeError(error)}`);
  }
}

/** Error names only: driver messages may quote hosts or credentials. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}${'code' in error ? ` (${String((error as { code?: unknown }).code)})` : ''}`;
  return typeof error;
}
