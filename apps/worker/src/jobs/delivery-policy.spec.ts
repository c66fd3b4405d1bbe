import type { JobLease, JobRecord, JobStatus } from '../ports/job-store.port';
import { canAcquire } from '../ports/job-store.rules';
import { type DeliveryDecision, decideDelivery, watchStep, type WatchStep } from './delivery-policy';

const NOW = new Date('2026-03-01T10:00:00Z');
const ME = 'me:1:a';
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const lease = (owner: string, expiresInMs: number): JobLease => ({ token: 't', owner, expiresAt: at(expiresInMs) });
const job = (status: JobStatus, extra: { lease?: JobLease; metadata?: Record<string, unknown> } = {}): JobRecord => ({
  id: 'j',
  status,
  metadata: extra.metadata ?? {},
  ...(extra.lease ? { lease: extra.lease } : {}),
});
const pendingEvent = (status: unknown, payload: unknown) => ({ terminalEventPending: true, terminalEventStatus: status, terminalEventPayload: payload });

describe(decideDelivery.name, () => {
  const table: [string, JobRecord | undefined, DeliveryDecision][] = [
    ['no job', undefined, { kind: 'not-found' }],
    // An event left pending wins over the status: the delivery re-sends it.
    ['completed, event pending', job('completed', { metadata: pendingEvent('completed', '{"e":1}') }), { kind: 'resend-event', status: 'completed', payload: '{"e":1}' }],
    ['failed, event pending', job('failed', { metadata: pendingEvent('failed', '{"e":2}') }), { kind: 'resend-event', status: 'failed', payload: '{"e":2}' }],
    ['event status differs from the job', job('completed', { metadata: pendingEvent('failed', '{"e":1}') }), { kind: 'inconsistent-event' }],
    ['event status unknown', job('completed', { metadata: pendingEvent('done', '{"e":1}') }), { kind: 'inconsistent-event' }],
    ['event payload empty', job('failed', { metadata: pendingEvent('failed', '') }), { kind: 'inconsistent-event' }],
    ['event payload not a string', job('failed', { metadata: pendingEvent('failed', { e: 1 }) }), { kind: 'inconsistent-event' }],
    ['event pending on a processing job', job('processing', { metadata: pendingEvent('completed', '{"e":1}') }), { kind: 'inconsistent-event' }],
    ['pending flag not exactly true', job('completed', { metadata: { ...pendingEvent('completed', '{"e":1}'), terminalEventPending: 'true' } }), { kind: 'already-ended' }],
    ['completed', job('completed'), { kind: 'already-ended' }],
    ['failed', job('failed'), { kind: 'already-ended' }],
    // Canceled while pending (by the Manager): a later delivery is acked without running the job.
    ['canceled', job('canceled'), { kind: 'already-ended' }],
    ['canceled, event pending', job('canceled', { metadata: pendingEvent('canceled', '{"e":3}') }), { kind: 'resend-event', status: 'canceled', payload: '{"e":3}' }],
    ['pending', job('pending'), { kind: 'acquire', takeover: false }],
    ['pending with a stale lease', job('pending', { lease: lease('other', 60_000) }), { kind: 'acquire', takeover: false }],
    ['processing, live lease of another Worker', job('processing', { lease: lease('other', 1) }), { kind: 'running', ownLease: false }],
    ['processing, live lease of this Worker', job('processing', { lease: lease(ME, 30_000) }), { kind: 'running', ownLease: true }],
    ['processing, lease expiring this instant (still live)', job('processing', { lease: lease('other', 0) }), { kind: 'running', ownLease: false }],
    ['processing, lease expired', job('processing', { lease: lease('other', -1) }), { kind: 'acquire', takeover: true }],
    ['processing, own lease expired', job('processing', { lease: lease(ME, -1) }), { kind: 'acquire', takeover: true }],
    ['processing, no lease', job('processing'), { kind: 'acquire', takeover: true }],
  ];

  it.each(table)('%s', (_name, observed, decision) => {
    expect(decideDelivery({ job: observed, now: NOW, leaseOwner: ME })).toEqual(decision);
  });

  // The Worker asks the store for the lease before it reads the job: the store's condition must take
  // exactly the jobs this policy runs, or a delivery would run a job the policy would not.
  it.each(table.filter((row): row is [string, JobRecord, DeliveryDecision] => row[1] !== undefined))(
    "the store's acquire condition agrees: %s",
    (_name, observed, decision) => {
      expect(canAcquire({ ...observed, createdAt: NOW }, NOW)).toBe(decision.kind === 'acquire');
    },
  );
});

describe(watchStep.name, () => {
  const GIVE_UP = at(70_000);
  const table: [string, JobRecord | undefined, Date, WatchStep][] = [
    ['the job is gone', undefined, NOW, 'stop'],
    ['the job completed', job('completed'), NOW, 'stop'],
    ['the job failed', job('failed'), NOW, 'stop'],
    ['the job was canceled', job('canceled'), NOW, 'stop'],
    ['the job is pending again', job('pending'), NOW, 'take-over'],
    ['processing without a lease', job('processing'), NOW, 'take-over'],
    ['the lease ran out', job('processing', { lease: lease('other', -1) }), NOW, 'take-over'],
    ['the lease ran out after the give-up time', job('processing', { lease: lease('other', 75_000) }), at(80_000), 'take-over'],
    ['a live lease', job('processing', { lease: lease('other', 60_000) }), NOW, 'keep-watching'],
    ['a live lease at the give-up time', job('processing', { lease: lease('other', 90_000) }), GIVE_UP, 'keep-watching'],
    ['a live lease past the give-up time', job('processing', { lease: lease('other', 90_000) }), at(70_001), 'stop'],
  ];

  it.each(table)('%s', (_name, observed, now, step) => {
    expect(watchStep(observed, now, GIVE_UP)).toBe(step);
  });
});
