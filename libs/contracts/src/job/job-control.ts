import type { Document } from 'mongodb';

/**
 * Job control shared by the Manager (which asks) and the Worker (which obeys). A cancel reaches
 * the Worker that holds a job's lease two ways: the Manager stamps `cancel_requested_at` on the job
 * (read by every lease renewal, so it survives a lost message or a Worker restart), and publishes a
 * control message on a fanout exchange that every Worker replica binds a private queue to (so the
 * run stops at once instead of at the next renewal).
 */

/** The terminal status of a canceled job. */
export const CANCELED_STATUS = 'canceled';

/** Fanout exchange for control messages: every Worker replica sees every message. */
export const JOB_CONTROL_EXCHANGE = 'fetcher.job.control';
/** Fanout ignores routing keys; the empty key says so. */
export const JOB_CONTROL_ROUTING_KEY = '';
/** The `type` of a cancel request. */
export const JOB_CANCEL_TYPE = 'job.cancel';

/** The job document field the Manager stamps when a cancel is asked for a processing job. */
export const CANCEL_REQUESTED_AT_FIELD = 'cancel_requested_at';

export interface JobCancelMessage {
  readonly type: typeof JOB_CANCEL_TYPE;
  readonly jobId: string;
  readonly requestedAt: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The control message body, in a fixed key order (it is signed like a job message). */
export function buildJobCancelMessage(jobId: string, requestedAt: Date): Buffer {
  return Buffer.from(JSON.stringify({ type: JOB_CANCEL_TYPE, jobId, requestedAt: requestedAt.toISOString() }));
}

/** The cancel request a body carries, or `undefined` for anything else (unknown type, bad id or date, not JSON). */
export function parseJobControlMessage(body: Buffer | string): JobCancelMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { type, jobId, requestedAt } = value as Record<string, unknown>;
  if (type !== JOB_CANCEL_TYPE || typeof jobId !== 'string' || !UUID.test(jobId) || typeof requestedAt !== 'string') return undefined;
  const at = new Date(requestedAt);
  if (Number.isNaN(at.getTime())) return undefined;
  return { type: JOB_CANCEL_TYPE, jobId: jobId.toLowerCase(), requestedAt: at };
}

/** How far a canceled job got, as its event and the job document report it. */
export interface CanceledProgress {
  readonly tablesDone: number;
  readonly rowsSoFar: number;
  readonly durationMs: number;
}

/**
 * The `job.canceled` body, the same whoever cancels (the Manager for a pending job, the Worker for
 * a processing one): the request metadata, the status, what was done, and when it ended.
 */
export function canceledEventPayload(jobId: string, metadata: Readonly<Record<string, unknown>>, progress: CanceledProgress, canceledAt: Date): string {
  return JSON.stringify({
    jobId,
    metadata,
    status: CANCELED_STATUS,
    progress: { tablesDone: progress.tablesDone, rowsSoFar: progress.rowsSoFar },
    durationMs: progress.durationMs,
    canceledAt: canceledAt.toISOString(),
  });
}

/** `$set` of the cancel request the Manager stamps on a processing job. */
export function encodeCancelRequest(at: Date): Document {
  return { [CANCEL_REQUESTED_AT_FIELD]: at };
}
