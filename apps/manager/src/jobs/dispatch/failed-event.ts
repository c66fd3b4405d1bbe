import type { Job } from '../job';

/** Keys the Worker keeps in `metadata` for its own event bookkeeping: never part of an event. */
const OUTBOX_KEYS = new Set(['terminalEventPending', 'terminalEventStatus', 'terminalEventPayload', 'error']);

/**
 * The `job.failed` body for a job the Manager fails, byte for byte what the Worker sends for a job
 * it fails: the request metadata plus the error as an object (the job document keeps a string).
 */
export function failedEventPayload(job: Job, errorText: string): string {
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(job.metadata)) if (!OUTBOX_KEYS.has(key)) metadata[key] = value;
  return JSON.stringify({ jobId: job.id, metadata: { ...metadata, error: { message: errorText } }, status: 'failed' });
}
