import { randomBytes } from 'node:crypto';
import { KeyRing } from '@fetcher/platform';
import { withFaults } from '@fetcher/platform/testing';
import { Registry } from 'prom-client';
import { WorkerMetrics } from '../../metrics/worker-metrics';
import { FakeClock } from '../../testing/fake-clock';
import { TerminalWriteRefused } from '../../ports/job-store.port';
import { RecordingEventPublisher } from '../../testing/recording-event-publisher';
import { TestJobStore } from '../../testing/test-job-store';
import { JobOutbox } from '../job-outbox';
import type { JobSettings } from '../job-settings';
import { LeaseReaper, REAPED_ERROR } from './lease-reaper';
import { TerminalEventRepairer } from './terminal-event-repairer';

const setup = () => {
  const clock = new FakeClock('2026-03-01T10:00:00Z');
  const jobs = withFaults(new TestJobStore());
  const publisher = new RecordingEventPublisher();
  const settings = {
    leaseTtlMs: 60_000,
    eventsExchange: 'fetcher.job.events',
    eventSource: '//src',
    ring: KeyRing.create({ current: { version: '1', key: randomBytes(32) } }),
  } as JobSettings;
  const outbox = new JobOutbox(jobs, publisher, settings, clock);
  const metrics = new WorkerMetrics(new Registry());
  return { clock, jobs, publisher, outbox, metrics, settings };
};

describe(TerminalEventRepairer.name, () => {
  it('re-sends stored events with their ids and clears the markers; skips inconsistent ones', async () => {
    const { jobs, publisher, outbox } = setup();
    jobs.add('a', 'completed', { metadata: { terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"jobId":"a"}' } });
    jobs.add('b', 'failed', { metadata: { terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"jobId":"b"}' } });
    const sut = new TerminalEventRepairer(jobs, outbox);
    expect(await sut.runOnce()).toBe(1);
    expect(publisher.ids()).toEqual(['fetcher.job.completed.a']);
    expect(publisher.published[0].body.toString()).toBe('{"jobId":"a"}');
    expect(jobs.jobs.get('a')?.metadata.terminalEventPending).toBeUndefined();
    expect(jobs.jobs.get('b')?.metadata.terminalEventPending).toBe(true);
  });

  it('keeps the marker when the broker still refuses', async () => {
    const { jobs, publisher, outbox } = setup();
    jobs.add('a', 'completed', { metadata: { terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"jobId":"a"}' } });
    publisher.failWith = new Error('down');
    expect(await new TerminalEventRepairer(jobs, outbox).runOnce()).toBe(0);
    expect(jobs.jobs.get('a')?.metadata.terminalEventPending).toBe(true);
  });
});

describe(TerminalEventRepairer.name + ' with canceled jobs', () => {
  it('sends the stored job.canceled event of a canceled job', async () => {
    const { jobs, publisher, outbox } = setup();
    jobs.add('c', 'canceled', { metadata: { terminalEventPending: true, terminalEventStatus: 'canceled', terminalEventPayload: '{"jobId":"c"}' } });
    expect(await new TerminalEventRepairer(jobs, outbox).runOnce()).toBe(1);
    expect(publisher.ids()).toEqual(['fetcher.job.canceled.c']);
    expect(publisher.published[0].routingKey).toBe('job.canceled');
  });
});

describe(LeaseReaper.name, () => {
  it('fails jobs whose lease expired more than a TTL ago, emits job.failed and counts them', async () => {
    const { clock, jobs, publisher, outbox, metrics, settings } = setup();
    jobs.add('gone', 'processing', { lease: { token: 't', owner: 'w', expiresAt: new Date(clock.now().getTime() - 61_000) } });
    jobs.add('recent', 'processing', { lease: { token: 't', owner: 'w', expiresAt: new Date(clock.now().getTime() - 1_000) } });
    const sut = new LeaseReaper(jobs, settings, clock, outbox, metrics);
    expect(await sut.runOnce()).toBe(1);
    expect(jobs.jobs.get('gone')).toMatchObject({ status: 'failed', metadata: expect.objectContaining({ error: REAPED_ERROR }) });
    expect(jobs.jobs.get('recent')?.status).toBe('processing');
    expect(publisher.ids()).toEqual(['fetcher.job.failed.gone']);
    expect((await metrics.leaseReaped.get()).values[0].value).toBe(1);
  });

  it('ends a job asked to cancel as canceled, not failed, with the progress its dead worker wrote', async () => {
    const { clock, jobs, publisher, outbox, metrics, settings } = setup();
    const progress = { tablesDone: 1, rowsSoFar: 4_000, updatedAt: new Date(clock.now().getTime() - 70_000) };
    jobs.add('killed', 'processing', { lease: { token: 't', owner: 'w', expiresAt: new Date(clock.now().getTime() - 61_000) }, cancelRequestedAt: progress.updatedAt, progress });
    expect(await new LeaseReaper(jobs, settings, clock, outbox, metrics).runOnce()).toBe(1);
    expect(jobs.jobs.get('killed')).toMatchObject({ status: 'canceled', progress: { tablesDone: 1, rowsSoFar: 4_000 } });
    expect(jobs.jobs.get('killed')?.metadata.error).toBeUndefined();
    expect(publisher.ids()).toEqual(['fetcher.job.canceled.killed']);
    expect(JSON.parse(publisher.published[0].body.toString())).toMatchObject({ status: 'canceled', progress: { tablesDone: 1, rowsSoFar: 4_000 } });
    expect((await metrics.jobsCanceled.get()).values[0].value).toBe(1);
  });

  it('ends a job whose failure write the database refuses as written, with a bare record', async () => {
    const { clock, jobs, publisher, outbox, metrics, settings } = setup();
    jobs.add('big', 'processing', { metadata: { source: 'reporter', note: 'x'.repeat(50_000) }, lease: { token: 't', owner: 'w', expiresAt: new Date(clock.now().getTime() - 61_000) } });
    jobs.faults.failWhen('writeTerminal', (_id, _guard, write) => write.eventPayload.length > 10_000, () => new TerminalWriteRefused());
    expect(await new LeaseReaper(jobs, settings, clock, outbox, metrics).runOnce()).toBe(1);
    expect(jobs.jobs.get('big')).toMatchObject({ status: 'failed', metadata: expect.objectContaining({ error: 'process failed: the job outcome could not be stored' }) });
    expect(publisher.ids()).toEqual(['fetcher.job.failed.big']);
  });

  it('reaps the other jobs of a pass when one cannot be written at all', async () => {
    const { clock, jobs, outbox, metrics, settings } = setup();
    const expired = { token: 't', owner: 'w', expiresAt: new Date(clock.now().getTime() - 61_000) };
    jobs.add('stuck', 'processing', { lease: expired });
    jobs.add('next', 'processing', { lease: expired });
    const write = jobs.writeTerminal.bind(jobs);
    jobs.writeTerminal = (jobId, guard, terminal) => (jobId === 'stuck' ? Promise.reject(new Error('document cannot be rewritten')) : write(jobId, guard, terminal));
    expect(await new LeaseReaper(jobs, settings, clock, outbox, metrics).runOnce()).toBe(1);
    expect(jobs.jobs.get('next')?.status).toBe('failed');
  });
});
