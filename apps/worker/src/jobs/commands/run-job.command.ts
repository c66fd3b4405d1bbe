import { Command } from '@nestjs/cqrs';
import type { JobDelivery, JobOutcome } from '../job-settings';

/** Run (or settle) the job a verified message asks for; the result says how to settle the delivery. */
export class RunJobCommand extends Command<JobOutcome> {
  constructor(readonly delivery: JobDelivery) {
    super();
  }
}
