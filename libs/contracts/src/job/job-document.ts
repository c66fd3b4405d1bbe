import type { Binary, Document } from 'mongodb';
import type { MappedFields } from '@fetcher/engine';
import { binaryToUuid, uuidToBinary } from '../ids/uuid-binary';
import type { JobFilters } from './job-request';
import { decodeCursors, type JobCursors, type JobIncremental } from './job-incremental';

/** The collection both services share: the Manager creates and dispatches jobs, the Worker leases and finishes them. */
export const JOB_COLLECTION = 'job';

/** A job document as stored (snake_case); `_id` is a 16-byte binary UUID of subtype 0x00. */
export type JobDocument = Document & { _id: Binary };

/** The Worker's hold on a running job (`lease: {token, owner, expires_at}`). */
export interface JobLease {
  readonly token: string;
  readonly owner: string;
  readonly expiresAt: Date;
}

/** How far a running job got (`progress: {tables_done, rows_so_far, updated_at}`), written by the Worker. */
export interface JobProgress {
  readonly tablesDone: number;
  readonly rowsSoFar: number;
  readonly updatedAt?: Date;
}

/**
 * What a completed job's result holds (`result_stats: {size_bytes, row_count, row_counts}`), written by
 * the Worker with `completed`: the size of the JSON document before encryption (as the completed
 * event's `result.sizeBytes`), its rows in all, and its rows per datasource.
 */
export interface JobResultStats {
  readonly sizeBytes: number;
  readonly rowCount: number;
  readonly rowCounts: Readonly<Record<string, number>>;
}

/**
 * A job document as read, field by field: a field is present only when the document holds it with
 * the stored type. The request (`mappedFields`, `filters`) comes as stored, unchecked; each reader
 * checks it by its own rules. Statuses are the apps' to name, so `status` is the stored text.
 */
export interface JobDocumentRecord {
  readonly id: string;
  readonly status: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly mappedFields?: unknown;
  readonly filters?: unknown;
  /** The request's `incremental`, as stored (absent for a full extraction). */
  readonly incremental?: unknown;
  /** Written by the Worker when an incremental job completes: the positions the next job starts after. */
  readonly cursors?: JobCursors;
  readonly requestHash?: string;
  readonly createdAt?: Date;
  readonly completedAt?: Date;
  readonly dispatchedAt?: Date;
  readonly dispatchAttempts?: number;
  readonly redispatchCount?: number;
  readonly resultPath?: string;
  readonly resultHmac?: string;
  readonly lease?: JobLease;
  readonly progress?: JobProgress;
  /** Written by the Worker with `completed`. */
  readonly resultStats?: JobResultStats;
  /** Set by the Manager when a cancel is asked for a processing job; read by the Worker's lease renewal. */
  readonly cancelRequestedAt?: Date;
  /** The failed job this one retries, and the job that retried this one (job control). */
  readonly retryOf?: string;
  readonly retriedBy?: string;
  /** The datasource names the request maps, sorted: what the job list filters `configName` on. */
  readonly datasources?: readonly string[];
}

/** A job as the Manager creates it. */
export interface NewJobRecord {
  readonly id: string;
  readonly status: string;
  readonly mappedFields: MappedFields;
  readonly filters?: JobFilters;
  readonly incremental?: JobIncremental;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly requestHash: string;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly dispatchedAt: Date | null;
  readonly dispatchAttempts: number;
  /** The failed or canceled job this one retries. */
  readonly retryOf?: string;
}

/** `dedup_active` is true exactly while a job is pending or processing: the active-hash index keys on it. */
export function isActiveJobStatus(status: string): boolean {
  return status === 'pending' || status === 'processing';
}

/** The document of a new job, as the Manager inserts it. */
export function encodeNewJob(job: NewJobRecord): JobDocument {
  return {
    _id: uuidToBinary(job.id),
    metadata: job.metadata,
    mapped_fields: job.mappedFields,
    ...(job.filters && Object.keys(job.filters).length > 0 ? { filters: job.filters } : {}),
    ...(job.incremental && Object.keys(job.incremental).length > 0 ? { incremental: job.incremental } : {}),
    status: job.status,
    dedup_active: isActiveJobStatus(job.status),
    request_hash: job.requestHash,
    created_at: job.createdAt,
    completed_at: job.completedAt,
    dispatched_at: job.dispatchedAt,
    dispatch_attempts: job.dispatchAttempts,
    dispatch_lock_until: null,
    datasources: Object.keys(job.mappedFields).sort(),
    ...(job.retryOf !== undefined ? { retry_of: job.retryOf } : {}),
  };
}

export function decodeJobDocument(doc: Document): JobDocumentRecord {
  const lease = decodeLease(doc.lease);
  const progress = decodeProgress(doc.progress);
  const resultStats = decodeResultStats(doc.result_stats);
  return {
    id: binaryToUuid(doc._id),
    status: typeof doc.status === 'string' ? doc.status : '',
    metadata: isObject(doc.metadata) ? doc.metadata : {},
    ...(doc.mapped_fields !== undefined ? { mappedFields: doc.mapped_fields } : {}),
    ...(doc.filters !== undefined ? { filters: doc.filters } : {}),
    ...(doc.incremental !== undefined && doc.incremental !== null ? { incremental: doc.incremental } : {}),
    ...(decodeCursors(doc.cursors) ? { cursors: decodeCursors(doc.cursors) } : {}),
    ...(typeof doc.request_hash === 'string' ? { requestHash: doc.request_hash } : {}),
    ...(doc.created_at instanceof Date ? { createdAt: doc.created_at } : {}),
    ...(doc.completed_at instanceof Date ? { completedAt: doc.completed_at } : {}),
    ...(doc.dispatched_at instanceof Date ? { dispatchedAt: doc.dispatched_at } : {}),
    ...(typeof doc.dispatch_attempts === 'number' ? { dispatchAttempts: doc.dispatch_attempts } : {}),
    ...(typeof doc.redispatch_count === 'number' ? { redispatchCount: doc.redispatch_count } : {}),
    ...(typeof doc.result_path === 'string' && doc.result_path !== '' ? { resultPath: doc.result_path } : {}),
    ...(typeof doc.result_hmac === 'string' && doc.result_hmac !== '' ? { resultHmac: doc.result_hmac } : {}),
    ...(lease ? { lease } : {}),
    ...(progress ? { progress } : {}),
    ...(resultStats ? { resultStats } : {}),
    ...(doc.cancel_requested_at instanceof Date ? { cancelRequestedAt: doc.cancel_requested_at } : {}),
    ...(typeof doc.retry_of === 'string' ? { retryOf: doc.retry_of } : {}),
    ...(typeof doc.retried_by === 'string' ? { retriedBy: doc.retried_by } : {}),
    ...(Array.isArray(doc.datasources) ? { datasources: doc.datasources.filter((d: unknown): d is string => typeof d === 'string') } : {}),
  };
}

/** `lease` as stored. */
export function encodeLease(lease: JobLease): Document {
  return { token: lease.token, owner: lease.owner, expires_at: lease.expiresAt };
}

/** `progress` as stored. */
export function encodeProgress(progress: JobProgress): Document {
  return { tables_done: progress.tablesDone, rows_so_far: progress.rowsSoFar, updated_at: progress.updatedAt };
}

/** `result_stats` as stored. */
export function encodeResultStats(stats: JobResultStats): Document {
  return { size_bytes: stats.sizeBytes, row_count: stats.rowCount, row_counts: { ...stats.rowCounts } };
}

/**
 * The outbox marker of a terminal event, in `metadata`: set with the terminal write (by the Worker,
 * or by the Manager when a job never reached the broker), sent and cleared by the Worker's repairer.
 */
export const TERMINAL_EVENT_MARKER_KEYS = ['metadata.terminalEventPending', 'metadata.terminalEventStatus', 'metadata.terminalEventPayload'] as const;

export function terminalEventMarker(status: string, payload: string): Document {
  return { 'metadata.terminalEventPending': true, 'metadata.terminalEventStatus': status, 'metadata.terminalEventPayload': payload };
}

function decodeLease(value: unknown): JobLease | undefined {
  if (!isObject(value)) return undefined;
  const { token, owner, expires_at: expiresAt } = value;
  return typeof token === 'string' && expiresAt instanceof Date ? { token, owner: String(owner), expiresAt } : undefined;
}

function decodeProgress(value: unknown): JobProgress | undefined {
  if (!isObject(value)) return undefined;
  const { tables_done: tables, rows_so_far: rows, updated_at: at } = value;
  const tablesDone = count(tables);
  const rowsSoFar = count(rows);
  if (tablesDone === undefined || rowsSoFar === undefined) return undefined;
  return { tablesDone, rowsSoFar, ...(at instanceof Date ? { updatedAt: at } : {}) };
}

/** `result_stats`, or nothing when any part of it is missing or of the wrong type (read as if absent). */
function decodeResultStats(value: unknown): JobResultStats | undefined {
  if (!isObject(value)) return undefined;
  const sizeBytes = count(value.size_bytes);
  const rowCount = count(value.row_count);
  if (sizeBytes === undefined || rowCount === undefined || !isObject(value.row_counts)) return undefined;
  const rowCounts: Record<string, number> = {};
  for (const [name, n] of Object.entries(value.row_counts)) {
    const rows = count(n);
    if (rows === undefined) return undefined;
    rowCounts[name] = rows;
  }
  return { sizeBytes, rowCount, rowCounts };
}

/** Counters come back as numbers, bigints or BSON Longs, depending on how they were written. */
function count(n: unknown): number | undefined {
  if (typeof n === 'number') return n;
  if (typeof n === 'bigint') return Number(n);
  if (isObject(n) && typeof n.toNumber === 'function') return (n.toNumber as () => number)();
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
