import { Command } from '@nestjs/cqrs';

/** A genuine message that arrived too late: fail its job if nobody started it, so it does not stay pending. */
export class FailExpiredJobCommand extends Command<void> {
  constructor(
    readonly jobId: string,
    readonly requestId: string,
  ) {
    super();
  }
}
