import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_STORE, type JobStore } from '../../ports/job-store.port';
import { failedPayload } from '../job-events';
import { isJobId } from '../job-message';
import { JobOutbox } from '../job-outbox';
import { FailPendingJobCommand } from './fail-pending-job.command';

export const EXPIRED_MESSAGE_ERROR = 'message expired before processing';
export const FUTURE_MESSAGE_ERROR = 'message timestamp is in the future: the clocks of the Manager and the Worker differ by more than 30 s';

/**
 * Fails a job whose genuine message is dead-lettered for good, only while the job is still pending
 * (a Worker that started it owns its outcome), and sends `job.failed`. Never throws: the message is
 * dead-lettered anyway, a stored event is sent by the repairer, and a job this write could not
 * reach (the database is down) is ended by the Manager's dispatch sweep.
 */
@CommandHandler(FailPendingJobCommand)
export class FailPendingJobHandler implements ICommandHandler<FailPendingJobCommand> {
  readonly #log = new Logger(FailPendingJobHandler.name);

  constructor(
    @Inject(JOB_STORE) private readonly jobs: JobStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: JobOutbox,
  ) {}

  async execute({ jobId, requestId, error }: FailPendingJobCommand): Promise<void> {
    if (!isJobId(jobId)) return;
    try {
      const job = await this.jobs.find(jobId);
      if (!job || job.status !== 'pending') return;
      const payload = failedPayload(jobId, job.metadata, error);
      const written = await this.jobs.writeTerminal(jobId, { kind: 'pending' }, {
        status: 'failed',
        completedAt: this.clock.now(),
        error,
        eventPayload: payload,
      });
      if (written) await this.outbox.emit(jobId, 'failed', payload, requestId);
    } catch {
      this.#log.warn(`job ${jobId}: could not fail the job of a dead-lettered message`);
    }
  }
}
