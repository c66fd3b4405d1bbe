import { awaitsEvent, canAcquire, guardAdmits, holdsLease, isAbandoned, jobRecordOf, type JobState } from './job-store.rules';

const NOW = new Date('2026-06-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const job = (over: Partial<JobState> = {}): JobState => ({ id: 'j', status: 'pending', metadata: {}, createdAt: at(-60_000), ...over });
const lease = (token: string, expiresInMs: number) => ({ token, owner: 'w', expiresAt: at(expiresInMs) });

describe('job store rules', () => {
  it('lets a pending job, or a processing one with an expired or no lease, be acquired', () => {
    expect(canAcquire(job(), NOW)).toBe(true);
    expect(canAcquire(job({ status: 'processing' }), NOW)).toBe(true);
    expect(canAcquire(job({ status: 'processing', lease: lease('a', -1) }), NOW)).toBe(true);
    expect(canAcquire(job({ status: 'processing', lease: lease('a', 0) }), NOW)).toBe(false);
    expect(canAcquire(job({ status: 'completed' }), NOW)).toBe(false);
  });

  it('holds a lease only for the exact token of a processing job', () => {
    expect(holdsLease(job({ status: 'processing', lease: lease('a', 1000) }), 'a')).toBe(true);
    expect(holdsLease(job({ status: 'processing', lease: lease('a', 1000) }), 'b')).toBe(false);
    expect(holdsLease(job({ status: 'failed', lease: lease('a', 1000) }), 'a')).toBe(false);
  });

  it('admits terminal writes per guard', () => {
    const leased = job({ status: 'processing', lease: lease('a', 1000) });
    expect(guardAdmits(leased, { kind: 'lease', token: 'a' })).toBe(true);
    expect(guardAdmits(leased, { kind: 'lease', token: 'b' })).toBe(false);
    expect(guardAdmits(leased, { kind: 'pending' })).toBe(false);
    expect(guardAdmits(job(), { kind: 'pending' })).toBe(true);
    expect(guardAdmits(leased, { kind: 'observed', token: 'a' })).toBe(true);
    expect(guardAdmits(job({ status: 'processing' }), { kind: 'observed', token: undefined })).toBe(true);
    expect(guardAdmits(leased, { kind: 'observed', token: undefined })).toBe(false);
  });

  it('awaits an event only for a terminal job with the outbox marker', () => {
    expect(awaitsEvent(job({ status: 'completed', metadata: { terminalEventPending: true } }))).toBe(true);
    expect(awaitsEvent(job({ status: 'failed', metadata: { terminalEventPending: true } }))).toBe(true);
    expect(awaitsEvent(job({ status: 'processing', metadata: { terminalEventPending: true } }))).toBe(false);
    expect(awaitsEvent(job({ status: 'completed' }))).toBe(false);
  });

  it('calls a job abandoned one TTL after its lease expired, or when leaseless and old', () => {
    expect(isAbandoned(job({ status: 'processing', lease: lease('a', -30_001) }), NOW, 30_000, 600_000)).toBe(true);
    expect(isAbandoned(job({ status: 'processing', lease: lease('a', -30_000) }), NOW, 30_000, 600_000)).toBe(false);
    expect(isAbandoned(job({ status: 'processing', createdAt: at(-600_001) }), NOW, 30_000, 600_000)).toBe(true);
    expect(isAbandoned(job({ status: 'processing' }), NOW, 30_000, 600_000)).toBe(false);
    expect(isAbandoned(job({ status: 'pending', createdAt: at(-10_000_000) }), NOW, 30_000, 600_000)).toBe(false);
  });

  it('hands out a copy that cannot change the stored job', () => {
    const stored = job({ status: 'processing', lease: lease('a', 1000), metadata: { n: { deep: 1 } }, completedAt: null });
    const record = jobRecordOf(stored);
    expect(record).toEqual({ id: 'j', status: 'processing', metadata: { n: { deep: 1 } }, createdAt: stored.createdAt, lease: stored.lease });
    (record.metadata.n as { deep: number }).deep = 2;
    expect(stored.metadata).toEqual({ n: { deep: 1 } });
  });
});
