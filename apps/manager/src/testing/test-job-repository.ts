import type { TenantContext } from '@fetcher/engine';
import { JobTable, type StoredJob } from '@fetcher/contracts';
import { MemoryJobRepository } from '../adapters/embedded/job-repository.memory';
import { isActive, type Job, type JobStatus } from '../jobs/job';
import type { CreateOutcome, InsertOutcome } from '../ports/job-repository.port';

/**
 * The embedded JobRepository on an in-memory job table (its behaviour is the adapter's, which the
 * JobRepository contract checks), plus what the specs need around it: the stored jobs as the
 * table holds them (with the Worker's outbox marker), a way to play the Worker, and a hook that
 * runs just before an insert looks and stores, to interleave other requests. Faults: wrap it in
 * `withFaults` (`@fetcher/platform/testing`).
 */
export class TestJobRepository extends MemoryJobRepository {
  beforeInsert?: (job: Job) => void;

  constructor(readonly jobTable: JobTable = JobTable.inMemory()) {
    super(jobTable);
  }

  override insert(tenant: TenantContext, job: Job): Promise<InsertOutcome> {
    this.beforeInsert?.(job);
    return super.insert(tenant, job);
  }

  override insertUnlessReusable(tenant: TenantContext, job: Job, reusableSince: Date): Promise<CreateOutcome> {
    this.beforeInsert?.(job);
    return super.insertUnlessReusable(tenant, job, reusableSince);
  }

  /** Every stored job, as stored. The embedded table is single-tenant: the tenant is not a namespace. */
  all(_tenant?: TenantContext): StoredJob[] {
    return this.jobTable.all();
  }

  /** What a Worker would do to a job. */
  setStatus(_tenant: TenantContext, id: string, status: JobStatus, at?: Date): void {
    const job = this.jobTable.get(id);
    if (!job) throw new Error(`no job ${id}`);
    job.status = status;
    job.completedAt = isActive(status) ? null : (at ?? job.createdAt);
  }
}
