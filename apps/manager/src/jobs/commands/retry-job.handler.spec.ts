import { createTenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import { FakeClock } from '../../testing/fake-clock';
import { RecordingJobPublisher } from '../../testing/recording-job-publisher';
import { TestJobRepository } from '../../testing/test-job-repository';
import type { Job, JobStatus } from '../job';
import { RetryJobCommand } from './retry-job.command';
import { DispatchMarks } from './dispatch-marks';
import { RetryJobHandler } from './retry-job.handler';

const tenant = createTenantContext('default', 'req-1');

function aJob(status: JobStatus, requestHash = uuidv7()): Job {
  return {
    id: uuidv7(),
    status,
    mappedFields: { 'pg-main': { t: ['a'] } },
    filters: { 'pg-main': { t: { a: { eq: [1] } } } },
    metadata: { source: 'reporter', correlationId: 'c-1', ...(status === 'failed' ? { error: 'connect failed' } : {}) },
    requestHash,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    completedAt: status === 'pending' || status === 'processing' ? null : new Date('2026-01-01T00:00:30Z'),
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}

describe(RetryJobHandler.name, () => {
  const setup = async (...stored: Job[]) => {
    const jobs = new TestJobRepository();
    for (const job of stored) await jobs.insert(tenant, job);
    const publisher = new RecordingJobPublisher();
    return { jobs, publisher, sut: new RetryJobHandler(jobs, publisher, new FakeClock('2026-01-01T00:01:00Z'), new DispatchMarks(jobs)) };
  };

  it.each(['failed', 'canceled'] as const)('retries a %s job as a new job with the same request, linked both ways, and publishes it', async (status) => {
    const original = aJob(status);
    const { sut, jobs, publisher } = await setup(original);
    const { job, created } = await sut.execute(new RetryJobCommand(tenant, original.id));
    expect(created).toBe(true);
    expect(job).toMatchObject({
      status: 'pending',
      mappedFields: original.mappedFields,
      filters: original.filters,
      metadata: { source: 'reporter', correlationId: 'c-1' },
      requestHash: original.requestHash,
      createdAt: new Date('2026-01-01T00:01:00Z'),
      retryOf: original.id,
    });
    expect(job.metadata).not.toHaveProperty('error');
    expect(await jobs.findById(tenant, original.id)).toMatchObject({ status, retriedBy: job.id });
    expect(publisher.published.map((p) => p.job.id)).toEqual([job.id]);
    expect(await jobs.findById(tenant, job.id)).toMatchObject({ retryOf: original.id, dispatchAttempts: 1 });
  });

  it('answers the earlier retry when the job was retried already, storing nothing', async () => {
    const original = aJob('failed');
    const { sut, jobs, publisher } = await setup(original);
    const first = await sut.execute(new RetryJobCommand(tenant, original.id));
    const second = await sut.execute(new RetryJobCommand(tenant, original.id));
    expect(second).toEqual({ job: expect.objectContaining({ id: first.job.id }), created: false });
    expect(jobs.all()).toHaveLength(2);
    expect(publisher.published).toHaveLength(1);
  });

  it.each(['pending', 'processing', 'completed'] as const)('refuses a %s job with 409 FET-1023', async (status) => {
    const original = aJob(status);
    const { sut } = await setup(original);
    await expect(sut.execute(new RetryJobCommand(tenant, original.id))).rejects.toMatchObject({ code: 'FET-1023', category: 'conflict' });
  });

  it('refuses while an identical request is active, and leaves the job retryable', async () => {
    const original = aJob('failed');
    const running = aJob('processing', original.requestHash);
    const { sut, jobs } = await setup(original, running);
    await expect(sut.execute(new RetryJobCommand(tenant, original.id))).rejects.toMatchObject({ code: 'FET-1023' });
    expect(await jobs.findById(tenant, original.id)).not.toHaveProperty('retriedBy');
    jobs.setStatus(tenant, running.id, 'completed');
    expect(await sut.execute(new RetryJobCommand(tenant, original.id))).toMatchObject({ created: true });
  });

  it('bypasses the dedup window for the retry only: a job completed a minute ago does not answer it', async () => {
    const original = aJob('canceled');
    const recent = { ...aJob('completed', original.requestHash), createdAt: new Date('2026-01-01T00:00:50Z') };
    const { sut } = await setup(original, recent);
    expect(await sut.execute(new RetryJobCommand(tenant, original.id))).toMatchObject({ created: true, job: { retryOf: original.id } });
  });

  it('answers 404 FET-1001 for an unknown job', async () => {
    const { sut } = await setup();
    await expect(sut.execute(new RetryJobCommand(tenant, uuidv7()))).rejects.toMatchObject({ code: 'FET-1001' });
  });

  it('fails the retry and answers 500 when the broker refuses it', async () => {
    const original = aJob('failed');
    const { sut, jobs, publisher } = await setup(original);
    publisher.failWith = new Error('channel closed');
    await expect(sut.execute(new RetryJobCommand(tenant, original.id))).rejects.toMatchObject({ code: 'FET-0002' });
    expect(jobs.all().find((j) => j.retryOf === original.id)).toMatchObject({ status: 'failed' });
  });
});
