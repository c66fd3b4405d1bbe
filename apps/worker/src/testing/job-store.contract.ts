import { randomUUID } from 'node:crypto';
import type { JobLease, JobStatus, JobStore } from '../ports/job-store.port';

/** A job as the Manager (or an earlier Worker) left it, for the store under test to find. */
export interface SeededJob {
  readonly id: string;
  readonly status: JobStatus;
  readonly createdAt: Date;
  readonly lease?: JobLease;
  /** A cancel the Manager asked for while the job was processing. */
  readonly cancelRequestedAt?: Date;
  /** Metadata beside the Manager's `{ source: 'reporter' }` (the Worker's outbox marker, say). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A store under test, and a way to put a job into the collection behind it. */
export interface JobStoreUnderTest {
  readonly store: JobStore;
  seed(job: SeededJob): Promise<void>;
}

const now = new Date('2026-03-01T10:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);

/**
 * What every JobStore must do, run against the MongoDB adapter and the embedded one alike: the
 * conditional writes that keep two Workers from owning or finishing the same job, and the outbox
 * marker behind the terminal event. `make` may share one collection between tests: every check
 * looks only at the jobs that test seeded.
 */
export function jobStoreContract(make: () => JobStoreUnderTest | Promise<JobStoreUnderTest>): void {
  let sut: JobStore;
  let seed: (status?: JobStatus, extra?: Partial<SeededJob>) => Promise<string>;
  beforeEach(async () => {
    const made = await make();
    sut = made.store;
    seed = async (status = 'pending', extra = {}) => {
      const id = randomUUID();
      await made.seed({ id, status, createdAt: now, ...extra });
      return id;
    };
  });

  it('finds a stored job with its status, metadata and request, and nothing for an unknown id', async () => {
    const id = await seed();
    expect(await sut.find(id)).toMatchObject({ id, status: 'pending', metadata: { source: 'reporter' }, mappedFields: { crm: { users: ['id'] } } });
    expect(await sut.find(randomUUID())).toBeUndefined();
  });

  it('acquires a pending job once: the second acquire loses', async () => {
    const id = await seed();
    const acquired = await sut.acquire(id, { token: 'a', owner: 'w1', expiresAt: later(60_000) }, now);
    expect(acquired).toEqual({ job: await sut.find(id), takeover: false });
    expect(acquired?.job).toMatchObject({ id, status: 'processing', metadata: { source: 'reporter' }, mappedFields: { crm: { users: ['id'] } }, lease: { token: 'a', owner: 'w1', expiresAt: later(60_000) } });
    expect(await sut.acquire(id, { token: 'b', owner: 'w2', expiresAt: later(60_000) }, now)).toBeUndefined();
    expect(await sut.acquire(randomUUID(), { token: 'c', owner: 'w3', expiresAt: later(60_000) }, now)).toBeUndefined();
    expect(await sut.find(id)).toMatchObject({ status: 'processing', lease: { token: 'a', owner: 'w1', expiresAt: later(60_000) } });
  });

  it('takes over only an expired or missing lease, and never a finished job', async () => {
    const expired = await seed('processing', { lease: { token: 'old', owner: 'w0', expiresAt: later(-1) } });
    const live = await seed('processing', { lease: { token: 'old', owner: 'w0', expiresAt: later(5_000) } });
    const leaseless = await seed('processing');
    const done = await seed('completed');
    const lease = { token: 'new', owner: 'w1', expiresAt: later(60_000) };
    expect(await sut.acquire(expired, lease, now)).toEqual({ job: await sut.find(expired), takeover: true });
    expect((await sut.find(expired))?.lease).toEqual(lease);
    expect(await sut.acquire(live, lease, now)).toBeUndefined();
    expect(await sut.acquire(leaseless, lease, now)).toMatchObject({ job: { status: 'processing', lease }, takeover: true });
    expect(await sut.acquire(done, lease, now)).toBeUndefined();
    expect(await sut.find(live)).toMatchObject({ status: 'processing', lease: { token: 'old' } });
  });

  it('treats a lease that expires at this very instant as still live', async () => {
    const id = await seed('processing', { lease: { token: 'old', owner: 'w0', expiresAt: now } });
    expect(await sut.acquire(id, { token: 'new', owner: 'w1', expiresAt: later(60_000) }, now)).toBeUndefined();
    expect(await sut.acquire(id, { token: 'new', owner: 'w1', expiresAt: later(60_000) }, later(1))).toMatchObject({ takeover: true });
  });

  it('acquires nothing the delivery policy would not run: a terminal event still pending, or a job that ended', async () => {
    const marker = { terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"e":1}' };
    const lease = { token: 'new', owner: 'w1', expiresAt: later(60_000) };
    const refused = [
      await seed('completed', { metadata: marker }),
      // Inconsistent (an event pending on a job that did not end): never run, whatever its status says.
      await seed('pending', { metadata: marker }),
      await seed('processing', { metadata: marker }),
      await seed('failed'),
      await seed('canceled'),
    ];
    for (const id of refused) {
      const before = await sut.find(id);
      expect(await sut.acquire(id, lease, now)).toBeUndefined();
      expect(await sut.find(id)).toEqual(before);
    }
    // A marker that is not exactly `true` is no marker (as for the policy).
    expect(await sut.acquire(await seed('pending', { metadata: { terminalEventPending: 'true' } }), lease, now)).toMatchObject({ takeover: false });
  });

  it('renews the lease only under the exact token', async () => {
    const id = await seed();
    await sut.acquire(id, { token: 't', owner: 'w', expiresAt: later(1_000) }, now);
    expect(await sut.renew(id, 't', later(90_000))).toEqual({ held: true });
    expect(await sut.renew(id, 'other', later(120_000))).toEqual({ held: false });
    expect(await sut.renew(randomUUID(), 't', later(120_000))).toEqual({ held: false });
    expect((await sut.find(id))?.lease?.expiresAt).toEqual(later(90_000));
  });

  it('reports a requested cancel on renewal, and keeps the lease held while it is honoured', async () => {
    const asked = later(-500);
    const id = await seed('processing', { lease: { token: 't', owner: 'w', expiresAt: later(1_000) }, cancelRequestedAt: asked });
    expect(await sut.renew(id, 't', later(90_000))).toEqual({ held: true, cancelRequestedAt: asked });
    expect(await sut.renew(id, 'other', later(90_000))).toEqual({ held: false });
    expect(await sut.find(id)).toMatchObject({ cancelRequestedAt: asked, lease: { expiresAt: later(90_000) } });
  });

  it('writes canceled under the lease with the progress it reached, and hands its event to the repairer', async () => {
    const id = await seed('processing', { lease: { token: 't', owner: 'w', expiresAt: later(60_000) }, cancelRequestedAt: now });
    const progress = { tablesDone: 2, rowsSoFar: 1234, updatedAt: later(7) };
    const write = { status: 'canceled' as const, completedAt: later(7), progress, eventPayload: '{"c":1}' };
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 'stale' }, write)).toBe(false);
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 't' }, write)).toBe(true);
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 't' }, { ...write, status: 'completed' })).toBe(false);
    const stored = await sut.find(id);
    expect(stored).toMatchObject({ status: 'canceled', completedAt: later(7), progress, metadata: { terminalEventStatus: 'canceled', terminalEventPayload: '{"c":1}' } });
    expect(stored?.lease).toBeUndefined();
    expect(await sut.acquire(id, { token: 'n', owner: 'w2', expiresAt: later(60_000) }, now)).toBeUndefined();
    expect((await sut.pendingEvents(50)).map((j) => j.id)).toContain(id);
  });

  it('writes the terminal state once under the lease, with the outbox marker, and clears the marker', async () => {
    const id = await seed();
    await sut.acquire(id, { token: 't', owner: 'w', expiresAt: later(60_000) }, now);
    await sut.writeProgress(id, 't', { tablesDone: 1, rowsSoFar: 500, updatedAt: now });
    const write = { status: 'completed' as const, completedAt: later(5), resultPath: `external-data/${id}.json`, resultHmac: 'ab', eventPayload: '{"x":1}' };
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 'stale' }, write)).toBe(false);
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 't' }, write)).toBe(true);
    expect(await sut.writeTerminal(id, { kind: 'lease', token: 't' }, write)).toBe(false);
    const stored = await sut.find(id);
    expect(stored).toMatchObject({
      status: 'completed',
      completedAt: later(5),
      metadata: { source: 'reporter', terminalEventPending: true, terminalEventStatus: 'completed', terminalEventPayload: '{"x":1}' },
    });
    expect(stored?.lease).toBeUndefined();
    expect(await sut.renew(id, 't', later(90_000))).toEqual({ held: false });
    expect((await sut.pendingEvents(50)).map((j) => j.id)).toContain(id);
    await sut.clearEventMarker(id);
    expect((await sut.find(id))?.metadata).toEqual({ source: 'reporter' });
    expect((await sut.pendingEvents(50)).map((j) => j.id)).not.toContain(id);
  });

  it('keeps the error text in metadata on a failed terminal write', async () => {
    const id = await seed();
    const write = { status: 'failed' as const, completedAt: now, error: 'message expired before processing', eventPayload: '{}' };
    expect(await sut.writeTerminal(id, { kind: 'pending' }, write)).toBe(true);
    expect(await sut.find(id)).toMatchObject({ status: 'failed', metadata: { source: 'reporter', error: 'message expired before processing', terminalEventStatus: 'failed' } });
  });

  it('fails only a still-pending job without a lease under the pending guard', async () => {
    const running = await seed('processing', { lease: { token: 't', owner: 'w', expiresAt: later(60_000) } });
    const write = { status: 'failed' as const, completedAt: now, error: 'message expired before processing', eventPayload: '{}' };
    expect(await sut.writeTerminal(running, { kind: 'pending' }, write)).toBe(false);
    expect(await sut.writeTerminal(randomUUID(), { kind: 'pending' }, write)).toBe(false);
    expect((await sut.find(running))?.status).toBe('processing');
  });

  it('lists abandoned jobs for the reaper and fails them on the observed lease only', async () => {
    const gone = await seed('processing', { lease: { token: 'g', owner: 'w', expiresAt: later(-120_000) } });
    const recent = await seed('processing', { lease: { token: 'r', owner: 'w', expiresAt: later(-1_000) } });
    const legacy = await seed('processing', { createdAt: later(-16 * 60_000) });
    const found = (await sut.abandoned(now, 60_000, 15 * 60_000)).map((j) => j.id);
    expect(found).toEqual(expect.arrayContaining([gone, legacy]));
    expect(found).not.toContain(recent);
    const write = { status: 'failed' as const, completedAt: now, error: 'processing lease expired', eventPayload: '{}' };
    expect(await sut.writeTerminal(gone, { kind: 'observed', token: 'other' }, write)).toBe(false);
    expect(await sut.writeTerminal(gone, { kind: 'observed', token: 'g' }, write)).toBe(true);
    expect(await sut.writeTerminal(legacy, { kind: 'observed', token: undefined }, write)).toBe(true);
    expect((await sut.abandoned(now, 60_000, 15 * 60_000)).map((j) => j.id)).not.toEqual(expect.arrayContaining([gone]));
  });

  it('hands out at most the default batch of pending events when asked for an unbounded number', async () => {
    for (let i = 0; i < 12; i++) {
      const id = await seed();
      await sut.writeTerminal(id, { kind: 'pending' }, { status: 'failed', completedAt: now, error: 'e', eventPayload: '{}' });
    }
    expect(await sut.pendingEvents(0)).toHaveLength(10);
  });
}
