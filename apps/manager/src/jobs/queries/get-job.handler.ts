import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Errors } from '../../errors/catalogue';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import type { Job } from '../job';
import { GetJobQuery } from './get-job.query';

/** No product check: any caller allowed on the route may read any job of its tenant. */
@QueryHandler(GetJobQuery)
export class GetJobHandler implements IQueryHandler<GetJobQuery, Job> {
  constructor(@Inject(JOB_REPOSITORY) private readonly jobs: JobRepository) {}

  async execute({ tenant, jobId }: GetJobQuery): Promise<Job> {
    const job = await this.jobs.findById(tenant, jobId);
    if (!job) throw Errors.entityNotFound('job');
    return job;
  }
}
