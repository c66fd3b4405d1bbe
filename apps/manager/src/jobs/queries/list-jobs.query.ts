import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { Job } from '../job';
import type { ListJobsRequest } from '../dto/list-jobs.request';

/** One page of jobs, and the position after its last job when more may follow. */
export interface JobPage {
  readonly jobs: readonly Job[];
  readonly next?: { readonly createdAt: Date; readonly id: string };
}

export class ListJobsQuery extends Query<JobPage> {
  constructor(
    readonly tenant: TenantContext,
    /** The caller's product (`X-Product-Name`), which scopes the list to jobs whose `metadata.source` it is. */
    readonly product: string | undefined,
    readonly request: ListJobsRequest,
  ) {
    super();
  }
}
