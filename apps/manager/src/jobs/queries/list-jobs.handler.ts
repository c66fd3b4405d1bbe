import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import { type JobPage, ListJobsQuery } from './list-jobs.query';

/**
 * A page of the caller's jobs. One job more than the page is read, so a full page says whether
 * another follows without a count (a count would cost the whole match, not the page).
 */
@QueryHandler(ListJobsQuery)
export class ListJobsHandler implements IQueryHandler<ListJobsQuery, JobPage> {
  constructor(@Inject(JOB_REPOSITORY) private readonly jobs: JobRepository) {}

  async execute({ tenant, product, request }: ListJobsQuery): Promise<JobPage> {
    const { limit, ...filters } = request;
    const found = await this.jobs.list(tenant, { ...filters, ...(product !== undefined ? { source: product } : {}), limit: limit + 1 });
    if (found.length <= limit) return { jobs: found };
    const jobs = found.slice(0, limit);
    const last = jobs[jobs.length - 1];
    return { jobs, next: { createdAt: last.createdAt, id: last.id } };
  }
}
