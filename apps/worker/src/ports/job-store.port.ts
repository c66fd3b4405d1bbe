import type { JobCursors, JobLease, JobResultStats } from '@fetcher/contracts';

/** What the Worker reads of a job document and the lease it holds on it (`lease` in the shared document codec). */
export type { JobLease };
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';
export type TerminalStatus = 'completed' | 'failed' | 'canceled';

/** Whether a status is final: nothing runs the job again. */
export function isTerminalStatus(status: JobStatus): status is TerminalStatus {
  return status === 'completed' || status === 'failed' || status === 'canceled';
}

export interface JobRecord {
  readonly id: string;
  readonly status: JobStatus;
  readonly metadata: Readonly<Record<string, unknown>>;
  /**
   * The request as the Manager stored it (`mapped_fields`, `filters`), unchecked: the Worker runs
   * this, never the message body's copy, and validates it before use.
   */
  readonly mappedFields?: unknown;
  readonly filters?: unknown;
  /** The stored `incremental` (absent for a full extraction), unchecked like the rest of the request. */
  readonly incremental?: unknown;
  readonly createdAt?: Date;
  readonly completedAt?: Date;
  readonly lease?: JobLease;
  /** The last progress written while it ran. */
  readonly progress?: JobProgress;
  /** When a cancel was asked for it while it was processing (the Manager stamps it). */
  readonly cancelRequestedAt?: Date;
}

export interface JobProgress {
  readonly tablesDone: number;
  readonly rowsSoFar: number;
  readonly updatedAt: Date;
}

/** A lease `acquire` took: the job as it is under that lease, and whether it had been started before (a takeover). */
export interface AcquiredJob {
  readonly job: JobRecord;
  /** The job was processing (its lease had run out, or it had none): another Worker had started it. */
  readonly takeover: boolean;
}

/** What a lease renewal found: the lease is gone, or still ours (extended), perhaps with a cancel asked for. */
export type LeaseRenewal = { readonly held: false } | { readonly held: true; readonly cancelRequestedAt?: Date };

/** The terminal state and the event that must follow it: written together, so the event cannot be lost. */
export interface TerminalWrite {
  readonly status: TerminalStatus;
  readonly completedAt: Date;
  readonly resultPath?: string;
  readonly resultHmac?: string;
  /** A completed incremental job's positions (`result.cursors`), stored as `cursors` for the next request's `after`. */
  readonly cursors?: JobCursors;
  /** A completed job's result: its size before encryption and its rows, in all and per datasource (`result_stats`). */
  readonly resultStats?: JobResultStats;
  /** The sanitised error text (stored as a string). */
  readonly error?: string;
  /** How far the job got: stored with a canceled job. */
  readonly progress?: JobProgress;
  /** The exact event body that is published, and republished by the repairer. */
  readonly eventPayload: string;
}

/**
 * Which state the terminal write may replace. `lease`: only while this worker still holds that exact
 * lease. `pending`: only a job nobody started (malformed and expired messages). `observed`: the
 * reaper's guard, the lease it saw expire (or no lease at all).
 */
export type TerminalGuard =
  | { readonly kind: 'lease'; readonly token: string }
  | { readonly kind: 'pending' }
  | { readonly kind: 'observed'; readonly token: string | undefined };

/**
 * `writeTerminal` reached the database and it refused the write as written (the document would be
 * too large, or cannot be stored): sending the same write again cannot help. Outages are not this.
 */
export class TerminalWriteRefused extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the database refused the terminal write', options);
    this.name = 'TerminalWriteRefused';
  }
}

/** The job collection, the only state the Worker shares with the Manager. */
export interface JobStore {
  find(jobId: string): Promise<JobRecord | undefined>;
  /**
   * One atomic find-and-update, and the delivery's first round trip: a job the delivery policy would
   * run (no terminal event pending, and pending, or processing with a lease that expired before
   * `now` or no lease) becomes processing under `lease`. `undefined` when the job is anything else
   * (absent, ended, leased by a live Worker, or just won by another one): the caller then reads it
   * to learn which, so the common case costs one round trip instead of a read and a write.
   */
  acquire(jobId: string, lease: JobLease, now: Date): Promise<AcquiredJob | undefined>;
  /**
   * Extends the lease, in one conditional update that also reads the job's `cancelRequestedAt`
   * (so every renewal notices a cancel, even one whose control message this Worker never got).
   */
  renew(jobId: string, token: string, expiresAt: Date): Promise<LeaseRenewal>;
  /** Best-effort progress while the job runs, only under our lease. */
  writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void>;
  /**
   * MUST be one conditional update; false when the guard no longer holds (nothing was written).
   * Throws TerminalWriteRefused when the database refuses this write, anything else on an outage.
   */
  writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean>;
  /** Drops the outbox marker once the event is confirmed. */
  clearEventMarker(jobId: string): Promise<void>;
  /** Terminal jobs whose event may not have gone out, oldest first. */
  pendingEvents(limit: number): Promise<JobRecord[]>;
  /** Processing jobs whose lease expired more than one TTL ago, or that never had one and are old. */
  abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]>;
}
export const JOB_STORE = Symbol('JobStore');
