import type { MappedFields } from '@fetcher/engine';
import { RecordDirectory, type RecordSink, volatileRecords } from '@fetcher/platform';
import type { JobLease, JobProgress, JobResultStats } from './job-document';
import type { JobFilters } from './job-request';
import type { JobCursors, JobIncremental } from './job-incremental';

/** The statuses both services give a job (each app names them in its own type, with these values). */
export type StoredJobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';

/**
 * One job as an embedded store keeps it: the Manager's view plus what the Worker adds (the
 * lease, the outbox marker in `metadata`, progress). Both apps' ports work on this one record, as
 * they share one collection in production. `status`, `resultPath` and `resultHmac` are top-level
 * fields of the file: the CLI reads them.
 */
export interface StoredJob {
  readonly id: string;
  status: StoredJobStatus;
  readonly mappedFields: MappedFields;
  readonly filters?: JobFilters;
  readonly incremental?: JobIncremental;
  metadata: Record<string, unknown>;
  readonly requestHash: string;
  readonly createdAt: Date;
  completedAt: Date | null;
  resultPath?: string;
  resultHmac?: string;
  /** Written with `completed` for an incremental job: the positions the next job starts after. */
  cursors?: JobCursors;
  dispatchedAt: Date | null;
  dispatchAttempts: number;
  dispatchLockUntil: Date | null;
  /** Re-dispatches by the dispatch sweep; absent in files written before it counted them. */
  redispatches?: number;
  lease?: JobLease;
  progress?: JobProgress;
  /** Written with `completed`: the result's size and row counts. */
  resultStats?: JobResultStats;
  /** Set by the Manager when a cancel is asked for a processing job (job control). */
  cancelRequestedAt?: Date;
  /** The job this one retries, and the job that retried this one. */
  retryOf?: string;
  retriedBy?: string;
  /** The datasource names the request maps, sorted (the job list's `configName` filter). */
  datasources?: readonly string[];
}

/**
 * The job collection in memory, the one the Manager's embedded JobRepository and the Worker's
 * embedded JobStore share in one process, as they share one collection in production. Opened on a
 * directory, each change is written to `<dir>/<id>.json` before the call that made it resolves.
 * Checks and changes run synchronously, so every method is atomic with respect to the others, as a
 * single-document update is in MongoDB.
 */
export class JobTable {
  private constructor(
    readonly jobs: Map<string, StoredJob>,
    private readonly directory: RecordSink<StoredJob>,
  ) {}

  static async open(dir: string): Promise<JobTable> {
    const { directory, records } = await RecordDirectory.open<StoredJob>(dir);
    return new JobTable(records, directory);
  }

  /** A table that writes nothing down: the specs' job collection, with the same rules. */
  static inMemory(): JobTable {
    return new JobTable(new Map(), volatileRecords<StoredJob>());
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
