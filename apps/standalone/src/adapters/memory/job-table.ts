import type { Job, JobStatus } from '@fetcher/manager';
import type { JobLease, JobProgress } from '@fetcher/worker';
import { RecordDirectory } from '../../persistence/record-directory';

/**
 * One job as the standalone service keeps it: the Manager's view plus what the Worker adds (the
 * lease, the outbox marker in `metadata`, progress). Both apps' ports work on this one record, as
 * they share one collection in production. `status`, `resultPath` and `resultHmac` are top-level
 * fields of the file: the CLI reads them.
 */
export interface StoredJob {
  readonly id: string;
  status: JobStatus;
  readonly mappedFields: Job['mappedFields'];
  readonly filters?: Job['filters'];
  metadata: Record<string, unknown>;
  readonly requestHash: string;
  readonly createdAt: Date;
  completedAt: Date | null;
  resultPath?: string;
  resultHmac?: string;
  dispatchedAt: Date | null;
  dispatchAttempts: number;
  dispatchLockUntil: Date | null;
  /** Re-dispatches by the dispatch sweep; absent in files written before it counted them. */
  redispatches?: number;
  lease?: JobLease;
  progress?: JobProgress;
}

/**
 * The job collection in memory, each change written to `<dataDir>/jobs/<id>.json` before the call
 * that made it resolves. Checks and changes run synchronously, so every method is atomic with
 * respect to the others, as a single-document update is in MongoDB.
 */
export class JobTable {
  private constructor(
    readonly jobs: Map<string, StoredJob>,
    private readonly directory: RecordDirectory<StoredJob>,
  ) {}

  static async open(dir: string): Promise<JobTable> {
    const { directory, records } = await RecordDirectory.open<StoredJob>(dir);
    return new JobTable(records, directory);
  }

  get(id: string): StoredJob | undefined {
    return this.jobs.get(id);
  }

  all(): StoredJob[] {
    return [...this.jobs.values()];
  }

  /** Stores a new job; the caller has checked that it may. */
  add(job: StoredJob): Promise<void> {
    this.jobs.set(job.id, job);
    return this.persist(job.id);
  }

  /** Writes the current state of a job (after an in-place change). */
  persist(id: string): Promise<void> {
    return this.directory.save(id, () => this.jobs.get(id));
  }

  flush(): Promise<void> {
    return this.directory.flush();
  }
}

export const isActive = (status: JobStatus): boolean => status === 'pending' || status === 'processing';
