import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_STORE, type JobStore } from '../../ports/job-store.port';
import { failedPayload } from '../job-events';
import { isJobId } from '../job-message';
import { JobOutbox } from '../job-outbox';
import { FailExpiredJobCommand } from './fail-expired-job.command';

export const EXPIRED_MESSAGE_ERROR = 'message expired before processing';

@CommandHandler(FailExpiredJobCommand)
export class FailExpiredJobHandler implements ICommandHandler<FailExpiredJobCommand> {
  readonly #log = new Logger(FailExpiredJobHandler.name);

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: JobOutbox,
  ) {}

  async execute({ jobId, requestId }: FailExpiredJobCommand): Promise<void> {
    if (!isJobId(jobId)) return;
    try {
      const job = await this.jobs.find(jobId);
      if (!job || job.status !== 'pending') return;
      const payload = failedPayload(jobId, job.metadata, EXPIRED_MESSAGE_ERROR);
      const written = await this.jobs.writeTerminal(jobId, { kind: 'pending' }, {
        status: 'failed',
        completedAt: this.clock.now(),
        error: EXPIRED_MESSAGE_ERROR,
        eventPayload: payload,
      });
      if (written) await this.outbox.emit(jobId, 'failed', payload, requestId);
    } catch {
      // The message is dead-lettered anyway; the repairer sends a stored event later.
      this.#log.warn(`job ${jobId}: could not fail the job of an expired message`);
    }
  }
}
