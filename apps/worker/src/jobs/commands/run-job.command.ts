import { Command } from '@nestjs/cqrs';
import type { JobOutcome } from '../delivery-outcome';
import type { JobDelivery } from '../job-settings';

/** Run (or otherwise settle) the job a verified message asks for; the result says what became of the delivery. */
export class RunJobCommand extends Command<JobOutcome> {
  constructor(readonly delivery: JobDelivery) {
    super();
  }
}
