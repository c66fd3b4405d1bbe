import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { v7 as uuidv7 } from 'uuid';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_PUBLISHER, type JobPublisher } from '../../ports/job-publisher.port';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import { isRetryable, type Job } from '../job';
import { DispatchMarks } from './dispatch-marks';
import { publishNewJob } from './publish-new-job';
import { RetryJobCommand, type RetryJobResult } from './retry-job.command';

/** What the service adds to `metadata`, which a retry does not carry over: the failure and the Worker's outbox. */
const SERVICE_METADATA_KEYS = new Set(['error', 'terminalEventPending', 'terminalEventStatus', 'terminalEventPayload']);

/**
 * Retries a failed or canceled job: a new job with the same request (mapped fields, filters, the
 * client's metadata, the same request hash), linked both ways. The dedup window is bypassed for
 * this one job, since an identical request that completed a minute ago is exactly what a retry
 * does not want back; the active-hash rule still holds, so other requests keep deduplicating
 * against the retry, and a retry while an identical request runs is refused. Connections are
 * not checked again: the Worker fails the retry if one is gone.
 */
@CommandHandler(RetryJobCommand)
export class RetryJobHandler implements ICommandHandler<RetryJobCommand, RetryJobResult> {
  readonly #logger = new Logger(RetryJobHandler.name);

  constructor(
    @Inject(JOB_REPOSITORY) private readonly jobs: JobRepository,
    @Inject(JOB_PUBLISHER) private readonly publisher: JobPublisher,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly marks: DispatchMarks,
  ) {}

  async execute({ tenant, jobId }: RetryJobCommand): Promise<RetryJobResult> {
    const original = await this.jobs.findById(tenant, jobId);
    if (!original) throw Errors.entityNotFound('job');
    if (!isRetryable(original.status)) throw Errors.jobNotRetryable(original.status);
    const retry = retryOf(original, this.clock.now());
    const outcome = await this.jobs.insertRetry(tenant, retry);
    switch (outcome.kind) {
      case 'created':
        await publishNewJob({ jobs: this.jobs, publisher: this.publisher, clock: this.clock, logger: this.#logger, marks: this.marks }, tenant, retry);
        return { job: retry, created: true };
      case 'retried_already':
        return { job: outcome.retry, created: false };
      case 'duplicate_active':
        throw Errors.retryAlreadyActive();
      case 'not_retryable':
        throw Errors.jobNotRetryable(outcome.status);
      case 'not_found':
        throw Errors.entityNotFound('job');
    }
  }
}

function retryOf(original: Job, now: Date): Job & { readonly retryOf: string } {
  const metadata = Object.fromEntries(Object.entries(original.metadata).filter(([key]) => !SERVICE_METADATA_KEYS.has(key)));
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields: original.mappedFields,
    ...(original.filters !== undefined ? { filters: original.filters } : {}),
    ...(original.incremental !== undefined ? { incremental: original.incremental } : {}),
    metadata,
    requestHash: original.requestHash,
    createdAt: now,
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
    retryOf: original.id,
  };
}
