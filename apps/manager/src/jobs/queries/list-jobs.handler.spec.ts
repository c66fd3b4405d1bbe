import { createTenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import { TestJobRepository } from '../../testing/test-job-repository';
import type { Job } from '../job';
import { ListJobsHandler } from './list-jobs.handler';
import { ListJobsQuery } from './list-jobs.query';

const tenant = createTenantContext('default');

function aJob(minute: number, source = 'reporter'): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields: { 'pg-main': { t: ['a'] } },
    metadata: { source },
    requestHash: uuidv7(),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}

describe(ListJobsHandler.name, () => {
  const setup = async (jobs: Job[]) => {
    const repository = new TestJobRepository();
    for (const job of jobs) await repository.insert(tenant, job);
    return new ListJobsHandler(repository);
  };

  it('answers a full page with the position of its last job, and the last page without one', async () => {
    const jobs = [aJob(1), aJob(2), aJob(3)];
    const sut = await setup(jobs);
    const first = await sut.execute(new ListJobsQuery(tenant, undefined, { limit: 2 }));
    expect(first.jobs.map((j) => j.id)).toEqual([jobs[2].id, jobs[1].id]);
    expect(first.next).toEqual({ createdAt: jobs[1].createdAt, id: jobs[1].id });
    const second = await sut.execute(new ListJobsQuery(tenant, undefined, { limit: 2, after: first.next }));
    expect(second).toEqual({ jobs: [expect.objectContaining({ id: jobs[0].id })] });
  });

  it('does not announce a next page when the page is exactly full', async () => {
    const sut = await setup([aJob(1), aJob(2)]);
    expect((await sut.execute(new ListJobsQuery(tenant, undefined, { limit: 2 }))).next).toBeUndefined();
  });

  it("scopes the list to the caller's product", async () => {
    const mine = aJob(1);
    const sut = await setup([mine, aJob(2, 'billing')]);
    expect((await sut.execute(new ListJobsQuery(tenant, 'reporter', { limit: 20 }))).jobs.map((j) => j.id)).toEqual([mine.id]);
  });
});
