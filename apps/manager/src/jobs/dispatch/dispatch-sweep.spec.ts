import { Logger } from '@nestjs/common';
import { createTenantContext } from '@fetcher/engine';
import type { Job } from '../job';
import { FakeClock } from '../../testing/fake-clock';
import { RecordingJobPublisher } from '../../testing/recording-job-publisher';
import { TestJobRepository } from '../../testing/test-job-repository';
import { DispatchSweep, gaveUpError, notPickedUpError } from './dispatch-sweep';

const tenant = createTenantContext('default');

/** The `job.failed` body the sweep stored in the job's outbox marker, for the Worker's repairer. */
function failedEventOf(job: Job | undefined): unknown {
  expect(job?.metadata).toMatchObject({ terminalEventPending: true, terminalEventStatus: 'failed' });
  return JSON.parse(String(job?.metadata.terminalEventPayload));
}

function setup(settings: Partial<ConstructorParameters<typeof DispatchSweep>[4]> = {}) {
  const jobs = new TestJobRepository();
  const publisher = new RecordingJobPublisher();
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  let counted = 0;
  let redispatched = 0;
  const sut = new DispatchSweep(
    jobs,
    publisher,
    clock,
    tenant,
    { intervalSec: 30, minAgeSec: 60, maxAttempts: 3, redispatchAfterSec: 600, maxRedispatches: 2, ...settings },
    { inc: () => counted++ },
    { inc: () => redispatched++ },
  );
  const insert = async (overrides: Partial<Job> = {}) => {
    const job: Job = {
      id: `00000000-0000-7000-8000-${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}`,
      status: 'pending',
      mappedFields: { a: { t: ['f'] } },
      metadata: { source: 's' },
      requestHash: `h-${Math.random()}`,
      createdAt: clock.now(),
      completedAt: null,
      dispatchedAt: null,
      dispatchAttempts: 0,
      ...overrides,
    };
    await jobs.insert(tenant, job);
    return job;
  };
  return { jobs, publisher, clock, sut, insert, counted: () => counted, redispatched: () => redispatched };
}

describe(DispatchSweep.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the failure paths log on purpose
  it('republishes an undispatched job once it is older than the minimum age, exactly once', async () => {
    const { sut, insert, clock, publisher, jobs, counted } = setup();
    const job = await insert();
    clock.advance(60_000);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 0, gaveUp: 0, redispatched: 0 }); // not older than 60 s yet
    clock.advance(1);
    expect(await sut.sweepOnce()).toEqual({ republished: 1, failed: 0, gaveUp: 0, redispatched: 0 });
    expect(publisher.published.map((p) => p.job.id)).toEqual([job.id]);
    expect(publisher.published[0].requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(jobs.all(tenant)).toMatchObject([{ dispatchedAt: clock.now(), status: 'pending' }]);
    clock.advance(10 * 60_000);
    expect((await sut.sweepOnce()).republished).toBe(0);
    expect(counted()).toBe(1);
  });

  it('leaves dispatched and non-pending jobs alone', async () => {
    const { sut, insert, clock, publisher, jobs } = setup();
    await insert({ dispatchedAt: clock.now() });
    const taken = await insert();
    jobs.setStatus(tenant, taken.id, 'processing');
    const waiting = await insert();
    clock.advance(120_000);
    expect((await sut.sweepOnce()).republished).toBe(1);
    expect(publisher.published.map((p) => p.job.id)).toEqual([waiting.id]);
  });

  it('retries a failed republish only after the claim lapses, then gives up after the maximum attempts', async () => {
    const { sut, insert, clock, publisher, jobs } = setup({ maxAttempts: 2, lockSec: 60 });
    const job = await insert();
    publisher.failWith = new Error('down');
    clock.advance(61_000);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 1, gaveUp: 0, redispatched: 0 });
    clock.advance(30_000);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 0, gaveUp: 0, redispatched: 0 }); // still claimed
    clock.advance(31_000);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 1, gaveUp: 0, redispatched: 0 });
    clock.advance(61_000);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 0, gaveUp: 1, redispatched: 0 });
    expect(jobs.all(tenant)).toMatchObject([{ id: job.id, status: 'failed', metadata: { error: gaveUpError(2) } }]);
    expect(failedEventOf(jobs.all(tenant)[0])).toEqual({ jobId: job.id, metadata: { source: 's', error: { message: gaveUpError(2) } }, status: 'failed' });
  });

  it('re-dispatches a job still pending long after its last dispatch (its message was lost), with a fresh publish, and not before', async () => {
    const { sut, insert, clock, publisher, jobs, redispatched } = setup();
    const job = await insert({ dispatchedAt: clock.now(), dispatchAttempts: 1 });
    clock.advance(600_000);
    expect((await sut.sweepOnce()).redispatched).toBe(0); // the message may still be queued: not older than the bound
    clock.advance(1);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 0, gaveUp: 0, redispatched: 1 });
    expect(publisher.published.map((p) => p.job.id)).toEqual([job.id]);
    expect(jobs.all(tenant)).toMatchObject([{ status: 'pending', dispatchedAt: clock.now() }]);
    expect(redispatched()).toBe(1);
    clock.advance(300_000);
    expect((await sut.sweepOnce()).redispatched).toBe(0); // the bound runs from the new dispatch
  });

  it('fails a job after the maximum re-dispatches, storing its job.failed event for the Worker to send', async () => {
    const { sut, insert, clock, publisher, jobs } = setup({ maxRedispatches: 2 });
    const job = await insert({ dispatchedAt: clock.now(), dispatchAttempts: 1 });
    for (let i = 0; i < 2; i++) {
      clock.advance(600_001);
      expect((await sut.sweepOnce()).redispatched).toBe(1);
    }
    clock.advance(600_001);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 0, gaveUp: 1, redispatched: 0 });
    expect(publisher.published).toHaveLength(2);
    const [failed] = jobs.all(tenant);
    expect(failed).toMatchObject({ id: job.id, status: 'failed', completedAt: clock.now(), metadata: { error: notPickedUpError(3) } });
    expect(failedEventOf(failed)).toEqual({ jobId: job.id, metadata: { source: 's', error: { message: notPickedUpError(3) } }, status: 'failed' });
    clock.advance(600_001);
    expect(await sut.sweepOnce()).toEqual({ republished: 0, failed: 0, gaveUp: 0, redispatched: 0 });
  });

  it('never re-dispatches a job a Worker took or finished', async () => {
    const { sut, insert, clock, publisher, jobs } = setup();
    const taken = await insert({ dispatchedAt: clock.now(), dispatchAttempts: 1 });
    const done = await insert({ dispatchedAt: clock.now(), dispatchAttempts: 1 });
    jobs.setStatus(tenant, taken.id, 'processing');
    jobs.setStatus(tenant, done.id, 'completed');
    clock.advance(3_600_000);
    expect((await sut.sweepOnce()).redispatched).toBe(0);
    expect(publisher.published).toEqual([]);
  });

  it('handles at most one batch per pass, oldest first', async () => {
    const { sut, insert, clock, publisher } = setup({ batchSize: 2 });
    const first = await insert();
    clock.advance(1);
    const second = await insert();
    clock.advance(1);
    await insert();
    clock.advance(120_000);
    expect((await sut.sweepOnce()).republished).toBe(2);
    expect(publisher.published.map((p) => p.job.id)).toEqual([first.id, second.id]);
    expect((await sut.sweepOnce()).republished).toBe(1);
  });

  describe('as a subsystem', () => {
    afterEach(() => jest.useRealTimers());

    it('sweeps once per interval after start, and not after stop', async () => {
      jest.useFakeTimers();
      const { sut, insert, clock, publisher } = setup({ intervalSec: 30 });
      await insert();
      clock.advance(120_000);
      await sut.start(new AbortController().signal);
      expect(publisher.published).toHaveLength(0);
      await jest.advanceTimersByTimeAsync(30_000);
      expect(publisher.published).toHaveLength(1);
      await sut.stop();
      await insert({ createdAt: new Date(0) });
      await jest.advanceTimersByTimeAsync(120_000);
      expect(publisher.published).toHaveLength(1);
    });

    it('stops when the process-wide signal aborts', async () => {
      jest.useFakeTimers();
      const { sut, insert, clock, publisher } = setup({ intervalSec: 1 });
      const controller = new AbortController();
      await sut.start(controller.signal);
      controller.abort();
      await insert();
      clock.advance(120_000);
      await jest.advanceTimersByTimeAsync(5_000);
      expect(publisher.published).toHaveLength(0);
    });
  });
});
