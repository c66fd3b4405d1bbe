import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { Job } from '../job';

/** `stopping`: the job was processing, and the Worker holding it was asked to stop (HTTP 202). */
export interface CancelJobResult {
  readonly job: Job;
  readonly stopping: boolean;
}

export class CancelJobCommand extends Command<CancelJobResult> {
  constructor(
    readonly tenant: TenantContext,
    readonly jobId: string,
  ) {
    super();
  }
}
