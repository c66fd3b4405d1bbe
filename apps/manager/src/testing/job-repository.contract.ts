import { randomUUID } from 'node:crypto';
import { createTenantContext } from '@fetcher/engine';
import { v7 as uuidv7 } from 'uuid';
import type { Job } from '../jobs/job';
import type { JobListPosition, JobListQuery, JobRepository } from '../ports/job-repository.port';

const tenant = createTenantContext('default');

function aJob(overrides: Partial<Job> = {}): Job {
  return {
    id: uuidv7(),
    status: 'pending',
    mappedFields: { 'pg-main': { t: ['a'] } },
    metadata: { source: 'reporter' },
    requestHash: randomUUID(),
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    completedAt: null,
    dispatchedAt: null,
    dispatchAttempts: 0,
    ...overrides,
  };
}

/**
 * What every JobRepository must do, run against the in-memory fake and the MongoDB adapter alike, so
 * the fake the unit tests trust behaves like the real store. `make` gives a fresh, empty repository.
 */
export function jobRepositoryContract(make: () => JobRepository | Promise<JobRepository>): void {
  let sut: JobRepository;
  beforeEach(async () => {
    sut = await make();
  });

  it('reads back what it stored', async () => {
    const job = aJob({ filters: { 'pg-main': { t: { a: { eq: [1] } } } } });
    expect(await sut.insert(tenant, job)).toBe('inserted');
    expect(await sut.findById(tenant, job.id)).toEqual(job);
    expect(await sut.findById(tenant, uuidv7())).toBeUndefined();
  });

  it('keeps one active job per request hash, and frees the hash once that job failed', async () => {
    const first = aJob();
    await sut.insert(tenant, first);
    expect(await sut.insert(tenant, aJob({ requestHash: first.requestHash }))).toBe('duplicate_active');
    expect((await sut.findNewestActiveByHash(tenant, first.requestHash))?.id).toBe(first.id);
    expect(await sut.markDispatchFailed(tenant, first.id, 'process failed: unable to publish', new Date('2026-01-01T00:00:01Z'))).toBe(true);
    expect(await sut.findById(tenant, first.id)).toMatchObject({
      status: 'failed',
      completedAt: new Date('2026-01-01T00:00:01Z'),
      metadata: { source: 'reporter', error: 'process failed: unable to publish' },
    });
    expect(await sut.findNewestActiveByHash(tenant, first.requestHash)).toBeUndefined();
    expect(await sut.insert(tenant, aJob({ requestHash: first.requestHash }))).toBe('inserted');
  });

  describe('insertUnlessReusable', () => {
    const since = new Date('2026-01-01T00:00:00.000Z');
    const inWindow = new Date('2026-01-01T00:02:00.000Z');

    it('stores the job when no job has its hash', async () => {
      const job = aJob({ createdAt: inWindow });
      expect(await sut.insertUnlessReusable(tenant, job, since)).toEqual({ created: true });
      expect(await sut.findById(tenant, job.id)).toEqual(job);
    });

    it('answers the active job with the hash, however old, and stores nothing', async () => {
      const old = aJob({ status: 'processing', createdAt: new Date('2025-12-01T00:00:00Z') });
      await sut.insert(tenant, old);
      const again = aJob({ requestHash: old.requestHash, createdAt: inWindow });
      expect(await sut.insertUnlessReusable(tenant, again, since)).toEqual({ created: false, existing: old });
      expect(await sut.findById(tenant, again.id)).toBeUndefined();
    });

    it('answers a job that completed within the window, and stores nothing', async () => {
      const done = aJob({ status: 'completed', createdAt: since, completedAt: inWindow });
      await sut.insert(tenant, done);
      const again = aJob({ requestHash: done.requestHash, createdAt: inWindow });
      expect(await sut.insertUnlessReusable(tenant, again, since)).toEqual({ created: false, existing: done });
      expect(await sut.findById(tenant, again.id)).toBeUndefined();
    });

    it('stores the job when the hash has only a failed job in the window or a completed one before it', async () => {
      const failed = aJob({ status: 'failed', createdAt: inWindow, completedAt: inWindow });
      const stale = aJob({ status: 'completed', createdAt: new Date(since.getTime() - 1), completedAt: inWindow });
      for (const previous of [failed, stale]) {
        await sut.insert(tenant, previous);
        const again = aJob({ requestHash: previous.requestHash, createdAt: inWindow });
        expect(await sut.insertUnlessReusable(tenant, again, since)).toEqual({ created: true });
        expect(await sut.findById(tenant, again.id)).toEqual(again);
      }
    });

    it('stores exactly one of many identical jobs inserted at once, and answers it to the others', async () => {
      const hash = randomUUID();
      const jobs = Array.from({ length: 10 }, () => aJob({ requestHash: hash, createdAt: inWindow }));
      const outcomes = await Promise.all(jobs.map((job) => sut.insertUnlessReusable(tenant, job, since)));
      const created = jobs.filter((_, i) => outcomes[i].created);
      expect(created).toHaveLength(1);
      for (const outcome of outcomes) if (!outcome.created) expect(outcome).toEqual({ created: false, existing: created[0] });
    });
  });

  it('fails a job for a lost publish only while it is pending', async () => {
    const job = aJob();
    await sut.insert(tenant, job);
    expect(await sut.markDispatchFailed(tenant, job.id, 'x', new Date())).toBe(true);
    expect(await sut.markDispatchFailed(tenant, job.id, 'y', new Date())).toBe(false);
    expect((await sut.findById(tenant, job.id))?.metadata.error).toBe('x');
  });

  it('finds the newest job with a hash since an instant, in any status', async () => {
    const hash = randomUUID();
    const older = aJob({ requestHash: hash, status: 'completed', createdAt: new Date('2026-01-01T00:00:00Z') });
    const newer = aJob({ requestHash: hash, status: 'failed', createdAt: new Date('2026-01-01T00:01:00Z') });
    await sut.insert(tenant, older);
    await sut.insert(tenant, newer);
    expect((await sut.findNewestByHashSince(tenant, hash, new Date('2026-01-01T00:00:00Z')))?.id).toBe(newer.id);
    expect(await sut.findNewestByHashSince(tenant, hash, new Date('2026-01-01T00:01:00.001Z'))).toBeUndefined();
  });

  it('claims the oldest undispatched pending job once per lock, counting attempts, until it is dispatched', async () => {
    const old = aJob({ createdAt: new Date('2026-01-01T00:00:00Z') });
    const young = aJob({ createdAt: new Date('2026-01-01T00:10:00Z') });
    const sent = aJob({ createdAt: new Date('2025-12-31T00:00:00Z'), dispatchedAt: new Date('2025-12-31T00:00:01Z') });
    for (const job of [young, old, sent]) await sut.insert(tenant, job);
    const claim = { createdBefore: new Date('2026-01-01T00:05:00Z'), now: new Date('2026-01-01T00:06:00Z'), lockUntil: new Date('2026-01-01T00:07:00Z') };

    expect(await sut.claimUndispatched(tenant, claim)).toMatchObject({ id: old.id, dispatchAttempts: 0 });
    expect(await sut.claimUndispatched(tenant, claim)).toBeUndefined(); // locked, too young, or dispatched
    const later = { ...claim, now: new Date('2026-01-01T00:07:00.001Z') };
    expect(await sut.claimUndispatched(tenant, later)).toMatchObject({ id: old.id, dispatchAttempts: 1 });
    await sut.markDispatched(tenant, old.id, new Date('2026-01-01T00:07:01Z'));
    expect(await sut.findById(tenant, old.id)).toMatchObject({ dispatchedAt: new Date('2026-01-01T00:07:01Z'), dispatchAttempts: 3 });
    expect(await sut.claimUndispatched(tenant, { ...later, now: new Date('2026-02-01T00:00:00Z') })).toBeUndefined();
  });

  it('claims the oldest pending job dispatched before the bound once per lock, counting re-dispatches', async () => {
    const at = (iso: string) => new Date(`2026-01-01T${iso}Z`);
    const stale = aJob({ createdAt: at('00:00:00'), dispatchedAt: at('00:00:01'), dispatchAttempts: 1 });
    const recent = aJob({ createdAt: at('00:00:00'), dispatchedAt: at('00:20:00'), dispatchAttempts: 1 });
    const never = aJob({ createdAt: at('00:00:00') });
    const taken = aJob({ createdAt: at('00:00:00'), dispatchedAt: at('00:00:01'), dispatchAttempts: 1, status: 'processing' });
    for (const job of [stale, recent, never, taken]) await sut.insert(tenant, job);
    const claim = { dispatchedBefore: at('00:10:00'), now: at('00:20:00'), lockUntil: at('00:21:00') };

    expect(await sut.claimStale(tenant, claim)).toMatchObject({ job: { id: stale.id }, redispatches: 0 });
    expect(await sut.claimStale(tenant, claim)).toBeUndefined(); // locked, recent, never dispatched, or taken
    await sut.markDispatched(tenant, stale.id, at('00:20:01'));
    expect(await sut.claimStale(tenant, { ...claim, now: at('00:21:01') })).toBeUndefined(); // dispatched again: recent
    const later = { dispatchedBefore: at('00:30:02'), now: at('00:40:00'), lockUntil: at('00:41:00') };
    expect(await sut.claimStale(tenant, later)).toMatchObject({ job: { id: stale.id }, redispatches: 1 });
  });

  it('stores the job.failed event in the outbox marker when failing a job with one, only while pending', async () => {
    const job = aJob();
    await sut.insert(tenant, job);
    expect(await sut.markDispatchFailed(tenant, job.id, 'gone', new Date('2026-01-01T00:00:01Z'), '{"status":"failed"}')).toBe(true);
    // Whether a repository shows the Worker's outbox marker to the Manager differs (the standalone one
    // hides it); that the stored event reaches the Worker is tested with each repository's Worker side.
    expect(await sut.findById(tenant, job.id)).toMatchObject({ status: 'failed', metadata: { source: 'reporter', error: 'gone' } });
    expect(await sut.markDispatchFailed(tenant, job.id, 'again', new Date(), '{}')).toBe(false);
  });

  describe('list', () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const ids = (jobs: readonly Job[]) => jobs.map((j) => j.id);

    /** Every page of a query, following the last job of each page. */
    async function pages(query: Omit<JobListQuery, 'after'>, between?: (page: number) => Promise<void>): Promise<Job[][]> {
      const all: Job[][] = [];
      let after: JobListPosition | undefined;
      for (;;) {
        const page = await sut.list(tenant, { ...query, ...(after ? { after } : {}) });
        if (page.length === 0) return all;
        all.push(page);
        const last = page[page.length - 1];
        after = { createdAt: last.createdAt, id: last.id };
        await between?.(all.length);
      }
    }

    it('filters on status, the creation range (from inclusive, to exclusive), a mapped datasource and the source', async () => {
      const a = aJob({ createdAt: at(1), status: 'failed' });
      const b = aJob({ createdAt: at(2), status: 'canceled', mappedFields: { 'mysql-x': { t: ['a'] } } });
      const c = aJob({ createdAt: at(3), status: 'completed', metadata: { source: 'billing' } });
      const d = aJob({ createdAt: at(4), status: 'pending', mappedFields: { 'pg-main': { t: ['a'] }, 'mysql-x': { u: ['b'] } } });
      for (const job of [a, b, c, d]) await sut.insert(tenant, job);

      expect(ids(await sut.list(tenant, { limit: 10 }))).toEqual([d.id, c.id, b.id, a.id]);
      expect(ids(await sut.list(tenant, { limit: 10, statuses: ['failed', 'canceled'] }))).toEqual([b.id, a.id]);
      expect(ids(await sut.list(tenant, { limit: 10, createdFrom: at(2), createdTo: at(4) }))).toEqual([c.id, b.id]);
      expect(ids(await sut.list(tenant, { limit: 10, configName: 'mysql-x' }))).toEqual([d.id, b.id]);
      expect(ids(await sut.list(tenant, { limit: 10, source: 'reporter' }))).toEqual([d.id, b.id, a.id]);
      expect(ids(await sut.list(tenant, { limit: 10, source: 'billing', statuses: ['pending'] }))).toEqual([]);
      expect(await sut.list(tenant, { limit: 10, configName: 'nope' })).toEqual([]);
      expect((await sut.list(tenant, { limit: 10, statuses: ['canceled'] }))[0]).toEqual(b);
    });

    it('pages newest first, ties broken by id, with neither duplicates nor gaps', async () => {
      const jobs = [1, 1, 1, 2, 2, 3, 4, 4, 4, 4, 5].map((minute) => aJob({ createdAt: at(minute) }));
      for (const job of jobs) await sut.insert(tenant, job);
      const expected = [...jobs].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1));

      const got = await pages({ limit: 3 });
      expect(got.map((p) => p.length)).toEqual([3, 3, 3, 2]);
      expect(got.flat().map((j) => j.id)).toEqual(ids(expected));
    });

    it('keeps later pages stable while new jobs are stored between reads', async () => {
      const old = [1, 2, 2, 3, 4, 5, 6].map((minute) => aJob({ createdAt: at(minute) }));
      for (const job of old) await sut.insert(tenant, job);
      const expected = [...old].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1));

      // Newer jobs (and one with the creation time of a job already listed) arrive after every page.
      const got = await pages({ limit: 2 }, async (page) => {
        await sut.insert(tenant, aJob({ createdAt: at(100 + page) }));
        await sut.insert(tenant, aJob({ createdAt: at(6) }));
      });
      const seen = got.flat().map((j) => j.id);
      expect(new Set(seen).size).toBe(seen.length);
      // The first page had the two newest; what follows it is exactly the older jobs, in order.
      expect(seen.filter((id) => old.some((j) => j.id === id))).toEqual(ids(expected));
    });
  });

  describe('cancel', () => {
    const at = new Date('2026-01-01T00:05:00Z');

    it('cancels a pending job once, freeing its hash and storing the job.canceled event', async () => {
      const job = aJob();
      await sut.insert(tenant, job);
      expect(await sut.cancelPending(tenant, job.id, at, '{"status":"canceled"}')).toBe(true);
      expect(await sut.findById(tenant, job.id)).toMatchObject({ status: 'canceled', completedAt: at, metadata: { source: 'reporter' } });
      expect(await sut.cancelPending(tenant, job.id, at, '{}')).toBe(false);
      expect(await sut.findNewestActiveByHash(tenant, job.requestHash)).toBeUndefined();
      expect(await sut.insert(tenant, aJob({ requestHash: job.requestHash }))).toBe('inserted');
    });

    it('never cancels a job that is not pending', async () => {
      const job = aJob({ status: 'processing' });
      await sut.insert(tenant, job);
      expect(await sut.cancelPending(tenant, job.id, at, '{}')).toBe(false);
      expect(await sut.findById(tenant, job.id)).toMatchObject({ status: 'processing' });
    });

    it('stamps a processing job with the first cancel request only', async () => {
      const job = aJob({ status: 'processing' });
      await sut.insert(tenant, job);
      expect(await sut.requestCancel(tenant, job.id, at)).toMatchObject({ id: job.id, status: 'processing', cancelRequestedAt: at });
      expect(await sut.requestCancel(tenant, job.id, new Date('2026-01-01T00:06:00Z'))).toMatchObject({ cancelRequestedAt: at });
      expect(await sut.findById(tenant, job.id)).toMatchObject({ cancelRequestedAt: at });
    });

    it('leaves a job in any other status as it is, and answers it', async () => {
      const done = aJob({ status: 'completed' });
      const waiting = aJob();
      for (const job of [done, waiting]) await sut.insert(tenant, job);
      expect(await sut.requestCancel(tenant, done.id, at)).toMatchObject({ status: 'completed' });
      expect(await sut.requestCancel(tenant, waiting.id, at)).not.toHaveProperty('cancelRequestedAt');
      expect(await sut.requestCancel(tenant, uuidv7(), at)).toBeUndefined();
    });
  });

  describe('insertRetry', () => {
    const retryFor = (original: Pick<Job, 'id' | 'requestHash'>): Job & { retryOf: string } => ({
      ...aJob({ requestHash: original.requestHash, createdAt: new Date('2026-01-01T00:10:00Z') }),
      retryOf: original.id,
    });

    it('stores the retry of a failed or canceled job and links both, once', async () => {
      const original = aJob({ status: 'canceled' });
      await sut.insert(tenant, original);
      const retry = retryFor(original);
      expect(await sut.insertRetry(tenant, retry)).toEqual({ kind: 'created' });
      expect(await sut.findById(tenant, retry.id)).toEqual(retry);
      expect(await sut.findById(tenant, original.id)).toMatchObject({ status: 'canceled', retriedBy: retry.id });
      expect(await sut.insertRetry(tenant, retryFor(original))).toEqual({ kind: 'retried_already', retry });
      // The retry is an active job like any other: identical requests deduplicate against it.
      expect((await sut.findNewestActiveByHash(tenant, original.requestHash))?.id).toBe(retry.id);
    });

    it('stores nothing for a job that is not failed or canceled, an unknown one, or while an identical request is active', async () => {
      const done = aJob({ status: 'completed' });
      const failed = aJob({ status: 'failed' });
      const running = aJob({ status: 'processing', requestHash: failed.requestHash });
      for (const job of [done, failed, running]) await sut.insert(tenant, job);
      expect(await sut.insertRetry(tenant, retryFor(done))).toEqual({ kind: 'not_retryable', status: 'completed' });
      expect(await sut.insertRetry(tenant, retryFor({ id: uuidv7(), requestHash: randomUUID() }))).toEqual({ kind: 'not_found' });
      const refused = retryFor(failed);
      expect(await sut.insertRetry(tenant, refused)).toEqual({ kind: 'duplicate_active' });
      expect(await sut.findById(tenant, refused.id)).toBeUndefined();
      expect(await sut.findById(tenant, failed.id)).not.toHaveProperty('retriedBy');
    });
  });
}
