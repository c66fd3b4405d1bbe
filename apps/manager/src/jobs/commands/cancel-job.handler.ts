import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { canceledEventPayload } from '@fetcher/contracts';
import type { TenantContext } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_CONTROL_PUBLISHER, type JobControlPublisher } from '../../ports/job-control-publisher.port';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import type { Job } from '../job';
import { CancelJobCommand, type CancelJobResult } from './cancel-job.command';

/** Rounds of read-and-write while the job keeps changing status under us (pending → processing → done). */
const ATTEMPTS = 3;

/** Keys of the Worker's outbox marker: never part of an event's metadata. */
const OUTBOX_KEYS = new Set(['terminalEventPending', 'terminalEventStatus', 'terminalEventPayload']);

/**
 * Cancels a job. Pending: canceled at once, conditionally on its still being pending, with the
 * `job.canceled` event stored in its outbox. Processing: `cancelRequestedAt` is stamped (the Worker's
 * lease renewal reads it) and a control message tells the Worker holding the lease to stop now; the
 * Worker writes `canceled` itself, conditionally on its lease. Every write is conditional on the
 * status read, so a cancel racing the job's end leaves exactly one terminal state.
 */
@CommandHandler(CancelJobCommand)
export class CancelJobHandler implements ICommandHandler<CancelJobCommand, CancelJobResult> {
  readonly #logger = new Logger(CancelJobHandler.name);

  constructor(
    @Inject(JOB_REPOSITORY) private readonly jobs: JobRepository,
    @Inject(JOB_CONTROL_PUBLISHER) private readonly control: JobControlPublisher,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenant, jobId }: CancelJobCommand): Promise<CancelJobResult> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const job = await this.jobs.findById(tenant, jobId);
      if (!job) throw Errors.entityNotFound('job');
      switch (job.status) {
        case 'canceled':
          return { job, stopping: false };
        case 'completed':
        case 'failed':
          throw Errors.jobNotCancelable(job.status);
        case 'pending': {
          const canceled = await this.#cancelPending(tenant, job);
          if (canceled) return { job: canceled, stopping: false };
          continue; // taken by a Worker (or ended) since the read
        }
        case 'processing': {
          const stamped = await this.jobs.requestCancel(tenant, job.id, this.clock.now());
          if (stamped?.status !== 'processing' || !stamped.cancelRequestedAt) continue; // ended since the read
          await this.#signal(tenant, stamped.id, stamped.cancelRequestedAt);
          return { job: stamped, stopping: true };
        }
      }
    }
    this.#logger.error(`job ${jobId} kept changing status during a cancel`);
    throw Errors.internal();
  }

  async #cancelPending(tenant: TenantContext, job: Job): Promise<Job | undefined> {
    const now = this.clock.now();
    const metadata = Object.fromEntries(Object.entries(job.metadata).filter(([key]) => !OUTBOX_KEYS.has(key)));
    // Never started: nothing done, no run time.
    const event = canceledEventPayload(job.id, metadata, { tablesDone: 0, rowsSoFar: 0, durationMs: 0 }, now);
    if (!(await this.jobs.cancelPending(tenant, job.id, now, event))) return undefined;
    return (await this.jobs.findById(tenant, job.id)) ?? { ...job, status: 'canceled', completedAt: now };
  }

  /**
   * Sent on every request, a repeated one too: it is idempotent for the Worker, and a repeat is the
   * client's way to push a message that was lost. A failed publish is logged, not answered: the
   * stamped request reaches the Worker at its next lease renewal anyway.
   */
  async #signal(tenant: TenantContext, jobId: string, requestedAt: Date): Promise<void> {
    try {
      await this.control.publishCancel(tenant, jobId, requestedAt);
    } catch (error) {
      this.#logger.warn(`publishing the cancel of job ${jobId} failed (${error instanceof Error ? error.name : typeof error}); the lease renewal carries it`);
    }
  }
}
