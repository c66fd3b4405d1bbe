import { Command } from '@nestjs/cqrs';

/**
 * A genuine message that is dead-lettered for good (expired, signed in the future, or out of
 * retries): fail its job if nobody started it, so that it does not stay pending.
 */
export class FailPendingJobCommand extends Command<void> {
  constructor(
    readonly jobId: string,
    readonly requestId: string,
    /** The error text stored on the job and sent in `job.failed`. */
    readonly error: string,
  ) {
    super();
  }
}
