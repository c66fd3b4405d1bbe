import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { Job } from '../job';

export class GetJobQuery extends Query<Job> {
  constructor(
    readonly tenant: TenantContext,
    readonly jobId: string,
  ) {
    super();
  }
}
