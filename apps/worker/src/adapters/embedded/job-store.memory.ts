import type { JobTable } from '@fetcher/contracts';
import type { AcquiredJob, JobLease, JobProgress, JobRecord, JobStore, LeaseRenewal, TerminalGuard, TerminalWrite } from '../../ports/job-store.port';
import { awaitsEvent, canAcquire, guardAdmits, holdsLease, isAbandoned, jobRecordOf } from '../../ports/job-store.rules';

/**
 * The Worker's embedded job store, over the job table it shares with the embedded Manager, with the
 * conditional semantics of the
 * MongoDB adapter: every check and change happens in one synchronous step, then is written down
 * before the call resolves.
 */
export class MemoryJobStore implements JobStore {
  constructor(private readonly table: JobTable) {}

  find(jobId: string): Promise<JobRecord | undefined> {
    const job = this.table.get(jobId);
    return Promise.resolve(job ? jobRecordOf(job) : undefined);
  }

  async acquire(jobId: string, lease: JobLease, now: Date): Promise<AcquiredJob | undefined> {
    const job = this.table.get(jobId);
    const free = job && canAcquire(job, now);
    if (!job || !free) return undefined;
    const takeover = job.status === 'processing';
    job.status = 'processing';
    job.lease = { ...lease };
    job.completedAt = null;
    await this.table.persist(jobId);
    return { job: jobRecordOf(job), takeover };
  }

  async renew(jobId: string, token: string, expiresAt: Date): Promise<LeaseRenewal> {
    const job = this.table.get(jobId);
    if (!job || !holdsLease(job, token)) return { held: false };
    job.lease = { ...job.lease, expiresAt };
    await this.table.persist(jobId);
    return job.cancelRequestedAt ? { held: true, cancelRequestedAt: new Date(job.cancelRequestedAt) } : { held: true };
  }

  async writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    const job = this.table.get(jobId);
    if (!job || !holdsLease(job, token)) return;
    job.progress = { ...progress };
    await this.table.persist(jobId);
  }

  async writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    const job = this.table.get(jobId);
    if (!job || !guardAdmits(job, guard)) return false;
    job.status = write.status;
    job.completedAt = write.completedAt;
    if (write.resultPath) job.resultPath = write.resultPath;
    if (write.resultHmac) job.resultHmac = write.resultHmac;
    if (write.cursors) job.cursors = structuredClone(write.cursors);
    if (write.resultStats) job.resultStats = { ...write.resultStats, rowCounts: { ...write.resultStats.rowCounts } };
    if (write.progress) job.progress = { ...write.progress };
    job.metadata = {
      ...job.metadata,
      ...(write.error !== undefined ? { error: write.error } : {}),
      terminalEventPending: true,
      terminalEventStatus: write.status,
      terminalEventPayload: write.eventPayload,
    };
    delete job.lease;
    await this.table.persist(jobId);
    return true;
  }

  async clearEventMarker(jobId: string): Promise<void> {
    const job = this.table.get(jobId);
    if (!job) return;
    const { terminalEventPending: _p, terminalEventStatus: _s, terminalEventPayload: _b, ...rest } = job.metadata;
    job.metadata = rest;
    await this.table.persist(jobId);
  }

  pendingEvents(limit: number): Promise<JobRecord[]> {
    const cap = limit <= 0 || limit > 50 ? 10 : limit;
    const found = this.table
      .all()
      .filter(awaitsEvent)
      .sort((a, b) => (a.completedAt?.getTime() ?? 0) - (b.completedAt?.getTime() ?? 0) || a.createdAt.getTime() - b.createdAt.getTime());
    return Promise.resolve(found.slice(0, cap).map(jobRecordOf));
  }

  abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]> {
    const found = this.table
      .all()
      .filter((j) => isAbandoned(j, now, ttlMs, leaselessAgeMs));
    return Promise.resolve(found.map(jobRecordOf));
  }
}
