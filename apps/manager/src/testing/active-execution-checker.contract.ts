import { randomUUID } from 'node:crypto';
import { createTenantContext, type ActiveExecutionChecker } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../jobs/job';
import type { JobRepository } from '../ports/job-repository.port';

const tenant = createTenantContext('default');

function aJob(mappedFields: Job['mappedFields']): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields,
    metadata: { source: 'reporter' },
    requestHash: randomUUID(),
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}

/** A checker under test, and the job repository that writes the collection it reads. */
export interface ActiveExecutionCheckerUnderTest {
  readonly checker: ActiveExecutionChecker;
  readonly jobs: JobRepository;
}

/**
 * What every ActiveExecutionChecker must do (the gate of PATCH and DELETE on a connection), run
 * against the MongoDB adapter and the embedded one alike: busy exactly while a pending or
 * processing job maps fields of the config name. `make` gives a checker over an empty collection.
 */
export function activeExecutionCheckerContract(make: () => ActiveExecutionCheckerUnderTest | Promise<ActiveExecutionCheckerUnderTest>): void {
  let sut: ActiveExecutionCheckerUnderTest;
  beforeEach(async () => {
    sut = await make();
  });

  it('is busy while a pending job maps the name, and free once that job ended', async () => {
    const job = aJob({ crm: { users: ['id'] }, billing: { invoices: ['id'] } });
    expect(await sut.checker.hasActiveExecutions(tenant, 'crm')).toBe(false);
    await sut.jobs.insert(tenant, job);
    expect(await sut.checker.hasActiveExecutions(tenant, 'crm')).toBe(true);
    expect(await sut.checker.hasActiveExecutions(tenant, 'billing')).toBe(true);
    expect(await sut.checker.hasActiveExecutions(tenant, 'other')).toBe(false);
    await sut.jobs.markDispatchFailed(tenant, job.id, 'process failed: unable to publish', new Date('2026-01-01T00:00:01.000Z'));
    expect(await sut.checker.hasActiveExecutions(tenant, 'crm')).toBe(false);
  });

  it('does not take a name that only prefixes or contains a mapped one, nor an inherited property name', async () => {
    await sut.jobs.insert(tenant, aJob({ 'crm-eu': { users: ['id'] } }));
    expect(await sut.checker.hasActiveExecutions(tenant, 'crm')).toBe(false);
    expect(await sut.checker.hasActiveExecutions(tenant, 'crm-eu-2')).toBe(false);
    expect(await sut.checker.hasActiveExecutions(tenant, 'constructor')).toBe(false);
  });

  it('counts a canceled job as ended, like any terminal one', async () => {
    const job = aJob({ crm: { users: ['id'] } });
    await sut.jobs.insert(tenant, job);
    expect(await sut.jobs.cancelPending(tenant, job.id, new Date('2026-01-01T00:00:01.000Z'), '{}')).toBe(true);
    expect(await sut.checker.hasActiveExecutions(tenant, 'crm')).toBe(false);
  });
}
