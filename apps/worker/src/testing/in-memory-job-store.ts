import { type JobLease, type JobProgress, type JobRecord, type JobStatus, type JobStore, type TerminalGuard, type TerminalWrite, TerminalWriteRefused } from '../ports/job-store.port';
import { awaitsEvent, canAcquire, guardAdmits, holdsLease, isAbandoned, jobRecordOf } from '../ports/job-store.rules';

interface StoredJob {
  id: string;
  status: JobStatus;
  metadata: Record<string, unknown>;
  mappedFields?: unknown;
  filters?: unknown;
  createdAt: Date;
  completedAt?: Date;
  lease?: JobLease;
  resultPath?: string;
  resultHmac?: string;
  progress?: JobProgress;
}

/** What `add` stores as the job's request unless told otherwise. */
export const STORED_REQUEST = { crm: { users: ['id', 'name'] } };

/** The job collection in memory, with the same conditional semantics as the Mongo adapter. */
export class InMemoryJobStore implements JobStore {
  readonly jobs = new Map<string, StoredJob>();
  readonly terminalWrites: { jobId: string; write: TerminalWrite }[] = [];
  readonly progressWrites: JobProgress[] = [];
  failFind = false;
  /** Terminal writes this refuses as the database would refuse a document it cannot store. */
  refuseTerminal: (write: TerminalWrite) => boolean = () => false;

  add(id: string, status: JobStatus = 'pending', extra: Partial<StoredJob> = {}): StoredJob {
    const job: StoredJob = { id, status, metadata: { source: 'reporter' }, mappedFields: STORED_REQUEST, createdAt: new Date('2026-01-01T00:00:00Z'), ...extra };
    this.jobs.set(id, job);
    return job;
  }

  find(jobId: string): Promise<JobRecord | undefined> {
    if (this.failFind) return Promise.reject(new Error('database down'));
    const job = this.jobs.get(jobId);
    return Promise.resolve(job ? jobRecordOf(job) : undefined);
  }

  acquire(jobId: string, lease: JobLease, now: Date): Promise<JobRecord | undefined> {
    const job = this.jobs.get(jobId);
    const free = job && canAcquire(job, now);
    if (!job || !free) return Promise.resolve(undefined);
    job.status = 'processing';
    job.lease = { ...lease };
    delete job.completedAt;
    return Promise.resolve(jobRecordOf(job));
  }

  renew(jobId: string, token: string, expiresAt: Date): Promise<boolean> {
    const job = this.jobs.get(jobId);
    if (!job || !holdsLease(job, token)) return Promise.resolve(false);
    job.lease = { ...job.lease, expiresAt };
    return Promise.resolve(true);
  }

  writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    const job = this.jobs.get(jobId);
    if (job && holdsLease(job, token)) {
      job.progress = progress;
      this.progressWrites.push(progress);
    }
    return Promise.resolve();
  }

  writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    if (this.refuseTerminal(write)) return Promise.reject(new TerminalWriteRefused());
    const job = this.jobs.get(jobId);
    if (!job || !guardAdmits(job, guard)) return Promise.resolve(false);
    job.status = write.status;
    job.completedAt = write.completedAt;
    if (write.resultPath) job.resultPath = write.resultPath;
    if (write.resultHmac) job.resultHmac = write.resultHmac;
    job.metadata = { ...job.metadata, terminalEventPending: true, terminalEventStatus: write.status, terminalEventPayload: write.eventPayload };
    if (write.error !== undefined) job.metadata.error = write.error;
    delete job.lease;
    this.terminalWrites.push({ jobId, write });
    return Promise.resolve(true);
  }

  clearEventMarker(jobId: string): Promise<void> {
    const job = this.jobs.get(jobId);
    if (job) {
      const { terminalEventPending: _a, terminalEventStatus: _b, terminalEventPayload: _c, ...rest } = job.metadata;
      job.metadata = rest;
    }
    return Promise.resolve();
  }

  pendingEvents(limit: number): Promise<JobRecord[]> {
    const found = [...this.jobs.values()].filter(awaitsEvent);
    return Promise.resolve(found.slice(0, limit).map(jobRecordOf));
  }

  abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]> {
    const found = [...this.jobs.values()].filter((j) => isAbandoned(j, now, ttlMs, leaselessAgeMs));
    return Promise.resolve(found.map(jobRecordOf));
  }
}
