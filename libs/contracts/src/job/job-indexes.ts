import type { IndexSpec } from '../indexes';

/**
 * The partial unique index that keeps one active job per request hash. The Manager owns it and
 * creates it through a migration (an older definition is dropped and `dedup_active` backfilled first).
 */
export const ACTIVE_HASH_INDEX = Object.freeze({
  name: 'uniq_job_hash_active',
  key: Object.freeze({ request_hash: 1 as const }),
  owner: 'manager' as const,
  unique: true,
  partialFilterExpression: Object.freeze({ dedup_active: true }),
}) satisfies IndexSpec;

/**
 * The plain indexes of `job`, each created by the service whose queries use it: the Manager's
 * listings, dispatch sweep and request-hash look-ups; the Worker's lease reaper (`idx_job_lease_expiry`)
 * and terminal-event repairer (`idx_job_terminal_event_repair`).
 */
export const JOB_INDEXES: readonly IndexSpec[] = Object.freeze<IndexSpec[]>([
  { name: 'idx_job_status', key: { status: 1 }, owner: 'manager' },
  { name: 'idx_job_status_created', key: { status: 1, created_at: -1 }, owner: 'manager', partialFilterExpression: { status: 'processing' } },
  { name: 'idx_job_created', key: { created_at: -1 }, owner: 'manager' },
  { name: 'idx_job_completed', key: { completed_at: -1 }, owner: 'manager' },
  { name: 'idx_job_status_completed', key: { status: 1, completed_at: -1 }, owner: 'manager', partialFilterExpression: { status: 'completed' } },
  { name: 'idx_job_hash_created', key: { request_hash: 1, created_at: -1 }, owner: 'manager' },
  {
    name: 'idx_job_terminal_event_repair',
    key: { 'metadata.terminalEventPending': 1, status: 1, completed_at: 1, created_at: 1 },
    owner: 'worker',
    partialFilterExpression: { 'metadata.terminalEventPending': true },
  },
  // The job list (GET /v1/fetcher): newest first with `_id` breaking ties, one index per filter it
  // can start from, so a page reads about `limit` index entries whatever the collection holds.
  { name: 'idx_job_list', key: { created_at: -1, _id: -1 }, owner: 'manager' },
  { name: 'idx_job_list_source', key: { 'metadata.source': 1, created_at: -1, _id: -1 }, owner: 'manager' },
  { name: 'idx_job_list_status', key: { status: 1, created_at: -1, _id: -1 }, owner: 'manager' },
  { name: 'idx_job_list_datasource', key: { datasources: 1, created_at: -1, _id: -1 }, owner: 'manager' },
  { name: 'idx_job_dispatch_sweep', key: { status: 1, dispatched_at: 1, created_at: 1 }, owner: 'manager', partialFilterExpression: { status: 'pending' } },
  { name: 'idx_job_lease_expiry', key: { status: 1, 'lease.expires_at': 1 }, owner: 'worker', partialFilterExpression: { status: 'processing' } },
]);
