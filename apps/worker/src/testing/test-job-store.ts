import { JobTable, type StoredJob } from '@fetcher/contracts';
import { MemoryJobStore } from '../adapters/embedded/job-store.memory';
import type { JobProgress, JobStatus, TerminalGuard, TerminalWrite } from '../ports/job-store.port';

/** What `add` stores as the job's request unless told otherwise. */
export const STORED_REQUEST = { crm: { users: ['id', 'name'] } };

/**
 * The embedded JobStore on an in-memory job table (its behaviour is the adapter's, which the
 * JobStore contract checks), plus what the specs need around it: seeding a job as the Manager
 * would have stored it, the stored jobs, and the terminal and progress writes that took effect.
 * Faults: wrap it in `withFaults` (`@fetcher/platform/testing`).
 */
export class TestJobStore extends MemoryJobStore {
  readonly terminalWrites: { jobId: string; write: TerminalWrite }[] = [];
  readonly progressWrites: JobProgress[] = [];

  constructor(readonly jobTable: JobTable = JobTable.inMemory()) {
    super(jobTable);
  }

  /** The stored jobs, by id, as the table holds them (changed in place by the store). */
  get jobs(): ReadonlyMap<string, StoredJob> {
    return this.jobTable.jobs;
  }

  add(id: string, status: JobStatus = 'pending', extra: Partial<StoredJob> = {}): StoredJob {
    const job: StoredJob = {
      id,
      status,
      metadata: { source: 'reporter' },
      mappedFields: STORED_REQUEST,
      requestHash: `hash-${id}`,
      createdAt: new Date('2026-01-01T00:00:00Z'),
      completedAt: null,
      dispatchedAt: null,
      dispatchAttempts: 1,
      dispatchLockUntil: null,
      ...extra,
    };
    this.jobTable.jobs.set(id, job);
    return job;
  }

  override async writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    const before = this.jobTable.get(jobId)?.progress;
    await super.writeProgress(jobId, token, progress);
    if (this.jobTable.get(jobId)?.progress !== before) this.progressWrites.push(progress);
  }

  override async writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    const written = await super.writeTerminal(jobId, guard, write);
    if (written) this.terminalWrites.push({ jobId, write });
    return written;
  }
}
