import type { JobLease, JobProgress, JobRecord, JobStore, TerminalGuard, TerminalWrite } from '../../../../worker/src/ports/job-store.port';
import type { JobTable, StoredJob } from './job-table';

/**
 * The Worker's job store over the standalone job table, with the conditional semantics of the
 * MongoDB adapter: every check and change happens in one synchronous step, then is written down
 * before the call resolves.
 */
export class MemoryJobStore implements JobStore {
  constructor(private readonly table: JobTable) {}

  find(jobId: string): Promise<JobRecord | undefined> {
    const job = this.table.get(jobId);
    return Promise.resolve(job ? toRecord(job) : undefined);
  }

  async acquire(jobId: string, lease: JobLease, now: Date): Promise<JobRecord | undefined> {
    const job = this.table.get(jobId);
    const free = job && (job.status === 'pending' || (job.status === 'processing' && (!job.lease || job.lease.expiresAt.getTime() < now.getTime())));
    if (!job || !free) return undefined;
    job.status = 'processing';
    job.lease = { ...lease };
    job.completedAt = null;
    await this.table.persist(jobId);
    return toRecord(job);
  }

  async renew(jobId: string, token: string, expiresAt: Date): Promise<boolean> {
    const job = this.table.get(jobId);
    if (!job || job.status !== 'processing' || job.lease?.token !== token) return false;
    job.lease = { ...job.lease, expiresAt };
    await this.table.persist(jobId);
    return true;
  }

  async writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    const job = this.table.get(jobId);
    if (!job || job.status !== 'processing' || job.lease?.token !== token) return;
    job.progress = { ...progress };
    await this.table.persist(jobId);
  }

  async writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    const job = this.table.get(jobId);
    if (!job || !matches(job, guard)) return false;
    job.status = write.status;
    job.completedAt = write.completedAt;
    if (write.resultPath) job.resultPath = write.resultPath;
    if (write.resultHmac) job.resultHmac = write.resultHmac;
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
      .filter((j) => j.metadata.terminalEventPending === true && (j.status === 'completed' || j.status === 'failed'))
      .sort((a, b) => (a.completedAt?.getTime() ?? 0) - (b.completedAt?.getTime() ?? 0) || a.createdAt.getTime() - b.createdAt.getTime());
    return Promise.resolve(found.slice(0, cap).map(toRecord));
  }

  abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]> {
    const found = this.table
      .all()
      .filter(
        (j) =>
          j.status === 'processing' &&
          (j.lease ? j.lease.expiresAt.getTime() < now.getTime() - ttlMs : j.createdAt.getTime() < now.getTime() - leaselessAgeMs),
      );
    return Promise.resolve(found.map(toRecord));
  }
}

function matches(job: StoredJob, guard: TerminalGuard): boolean {
  switch (guard.kind) {
    case 'lease':
      return job.status === 'processing' && job.lease?.token === guard.token;
    case 'pending':
      return job.status === 'pending';
    case 'observed':
      return job.status === 'processing' && job.lease?.token === guard.token;
  }
}

function toRecord(job: StoredJob): JobRecord {
  return structuredClone({
    id: job.id,
    status: job.status,
    metadata: job.metadata,
    createdAt: job.createdAt,
    ...(job.completedAt ? { completedAt: job.completedAt } : {}),
    ...(job.lease ? { lease: job.lease } : {}),
  });
}
