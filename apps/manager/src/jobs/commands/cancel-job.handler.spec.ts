import { createTenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../errors/app-error';
import { FakeClock } from '../../testing/fake-clock';
import { RecordingJobControlPublisher } from '../../testing/recording-job-control-publisher';
import { TestJobRepository } from '../../testing/test-job-repository';
import type { Job, JobStatus } from '../job';
import { CancelJobCommand } from './cancel-job.command';
import { CancelJobHandler } from './cancel-job.handler';

const tenant = createTenantContext('default');

function aJob(status: JobStatus = 'pending'): Job {
  return {
    id: uuidv7(),
    status,
    mappedFields: { 'pg-main': { t: ['a'] } },
    metadata: { source: 'reporter', correlationId: 'c-1' },
    requestHash: uuidv7(),
    createdAt: new Date('2026-01-01T00:00:00Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
  };
}

describe(CancelJobHandler.name, () => {
  const setup = async (job: Job) => {
    const jobs = new TestJobRepository();
    await jobs.insert(tenant, job);
    const control = new RecordingJobControlPublisher();
    const clock = new FakeClock('2026-01-01T00:01:00Z');
    return { jobs, control, clock, sut: new CancelJobHandler(jobs, control, clock) };
  };

  it('cancels a pending job at once and stores its job.canceled event in the outbox', async () => {
    const job = aJob('pending');
    const { sut, jobs, control } = await setup(job);
    const result = await sut.execute(new CancelJobCommand(tenant, job.id));
    expect(result).toMatchObject({ stopping: false, job: { status: 'canceled', completedAt: new Date('2026-01-01T00:01:00Z') } });
    const stored = jobs.all()[0];
    expect(stored.metadata).toMatchObject({ terminalEventPending: true, terminalEventStatus: 'canceled' });
    expect(JSON.parse(stored.metadata.terminalEventPayload as string)).toEqual({
      jobId: job.id,
      metadata: { source: 'reporter', correlationId: 'c-1' },
      status: 'canceled',
      progress: { tablesDone: 0, rowsSoFar: 0 },
      durationMs: 0,
      canceledAt: '2026-01-01T00:01:00.000Z',
    });
    expect(control.cancels).toEqual([]);
    // Idempotent: a second cancel answers the same state and writes nothing.
    expect(await sut.execute(new CancelJobCommand(tenant, job.id))).toMatchObject({ stopping: false, job: { status: 'canceled' } });
  });

  it('asks the Worker of a processing job to stop, stamping the first request time once', async () => {
    const job = aJob('processing');
    const { sut, control, clock } = await setup(job);
    const first = await sut.execute(new CancelJobCommand(tenant, job.id));
    expect(first).toMatchObject({ stopping: true, job: { status: 'processing', cancelRequestedAt: new Date('2026-01-01T00:01:00Z') } });
    clock.advance(5_000);
    const second = await sut.execute(new CancelJobCommand(tenant, job.id));
    expect(second.job.cancelRequestedAt).toEqual(new Date('2026-01-01T00:01:00Z'));
    expect(control.cancels.map((c) => [c.jobId, c.requestedAt.toISOString()])).toEqual([
      [job.id, '2026-01-01T00:01:00.000Z'],
      [job.id, '2026-01-01T00:01:00.000Z'],
    ]);
  });

  it('still answers 202 when the control message cannot be published: the lease renewal carries the request', async () => {
    const job = aJob('processing');
    const { sut, control } = await setup(job);
    control.failWith = new Error('channel closed');
    expect(await sut.execute(new CancelJobCommand(tenant, job.id))).toMatchObject({ stopping: true });
  });

  it.each(['completed', 'failed'] as const)('refuses a %s job with 409 FET-1022', async (status) => {
    const job = aJob(status);
    const { sut } = await setup(job);
    await expect(sut.execute(new CancelJobCommand(tenant, job.id))).rejects.toMatchObject({ code: 'FET-1022', category: 'conflict' });
  });

  it('answers 404 FET-1001 for an unknown job', async () => {
    const { sut } = await setup(aJob());
    const error = await sut.execute(new CancelJobCommand(tenant, uuidv7())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'FET-1001' });
  });

  it('follows a job that a Worker took between the read and the write', async () => {
    const job = aJob('pending');
    const { sut, jobs } = await setup(job);
    const cancelPending = jobs.cancelPending.bind(jobs);
    jobs.cancelPending = async (...args) => {
      jobs.setStatus(tenant, job.id, 'processing');
      return cancelPending(...args);
    };
    expect(await sut.execute(new CancelJobCommand(tenant, job.id))).toMatchObject({ stopping: true, job: { status: 'processing' } });
  });

  it('answers 409 when the job completed between the read and the cancel request', async () => {
    const job = aJob('processing');
    const { sut, jobs } = await setup(job);
    const requestCancel = jobs.requestCancel.bind(jobs);
    jobs.requestCancel = async (...args) => {
      jobs.setStatus(tenant, job.id, 'completed');
      return requestCancel(...args);
    };
    await expect(sut.execute(new CancelJobCommand(tenant, job.id))).rejects.toMatchObject({ code: 'FET-1022' });
  });
});
