import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { CreateJobRequest } from '../dto/create-job.request';
import type { Job } from '../job';

/** `duplicate`: an existing job answers the request (the controller turns that into 200 rather than 202). */
export interface CreateJobResult {
  readonly job: Job;
  readonly duplicate: boolean;
}

/** `tenant.requestId` is the HTTP request id; it travels in the message headers. */
export class CreateJobCommand extends Command<CreateJobResult> {
  constructor(
    readonly tenant: TenantContext,
    readonly request: CreateJobRequest,
  ) {
    super();
  }
}
