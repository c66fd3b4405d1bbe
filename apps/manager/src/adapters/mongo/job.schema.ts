import { Schema } from 'mongoose';

export const JOB_COLLECTION = 'job';
export const JOB_MODEL = 'Job';

/**
 * The `job` document (snake_case; the Worker writes the same documents). The adapter works through
 * the native collection so ids stay BSON binaries of subtype 0x00; the schema documents the shape
 * and names the collection for mongoose.
 */
export const JobSchema = new Schema(
  {
    _id: { type: Buffer },
    metadata: { type: Schema.Types.Mixed },
    mapped_fields: { type: Schema.Types.Mixed },
    filters: { type: Schema.Types.Mixed },
    status: String,
    dedup_active: Boolean,
    result_path: String,
    result_hmac: String,
    request_hash: String,
    created_at: Date,
    completed_at: Date,
    dispatched_at: Date,
    dispatch_attempts: Number,
    dispatch_lock_until: Date,
    /** How often the dispatch sweep re-dispatched the job after its message was lost. */
    redispatch_count: Number,
    // Written by the Worker: its lease on the job, and how far it got (tables done, rows so far).
    lease: { type: Schema.Types.Mixed },
    progress: { type: Schema.Types.Mixed },
  },
  { collection: JOB_COLLECTION, versionKey: false, autoIndex: false, strict: false },
);

/** The partial unique index that keeps one active job per request hash. */
export const ACTIVE_HASH_INDEX = Object.freeze({
  name: 'uniq_job_hash_active',
  key: { request_hash: 1 },
  unique: true,
  partialFilterExpression: { dedup_active: true },
});

/** Created at startup in single-tenant mode (the active-hash index separately, see the repository); names are part of the operator contract. */
export const JOB_INDEXES = [
  { name: 'idx_job_status', key: { status: 1 } },
  { name: 'idx_job_status_created', key: { status: 1, created_at: -1 }, partialFilterExpression: { status: 'processing' } },
  { name: 'idx_job_created', key: { created_at: -1 } },
  { name: 'idx_job_completed', key: { completed_at: -1 } },
  { name: 'idx_job_status_completed', key: { status: 1, completed_at: -1 }, partialFilterExpression: { status: 'completed' } },
  { name: 'idx_job_hash_created', key: { request_hash: 1, created_at: -1 } },
  {
    name: 'idx_job_terminal_event_repair',
    key: { 'metadata.terminalEventPending': 1, status: 1, completed_at: 1, created_at: 1 },
    partialFilterExpression: { 'metadata.terminalEventPending': true },
  },
  { name: 'idx_job_dispatch_sweep', key: { status: 1, dispatched_at: 1, created_at: 1 }, partialFilterExpression: { status: 'pending' } },
  { name: 'idx_job_lease_expiry', key: { status: 1, 'lease.expires_at': 1 }, partialFilterExpression: { status: 'processing' } },
] as const;
