import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { Job } from '../job';

/** `created`: a new job (HTTP 202); otherwise the job's earlier retry (200). */
export interface RetryJobResult {
  readonly job: Job;
  readonly created: boolean;
}

export class RetryJobCommand extends Command<RetryJobResult> {
  constructor(
    readonly tenant: TenantContext,
    readonly jobId: string,
  ) {
    super();
  }
}
