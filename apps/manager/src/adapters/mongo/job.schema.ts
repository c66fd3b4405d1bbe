import { JOB_COLLECTION } from '@fetcher/contracts';
import { Schema } from 'mongoose';

export const JOB_MODEL = 'Job';

/**
 * The `job` document (snake_case; the Worker writes the same documents). The field mapping is
 * `@fetcher/contracts`' codec (`encodeNewJob`, `decodeJobDocument`), which both services use; the
 * adapter works through the native collection so ids stay BSON binaries of subtype 0x00 (see
 * docs/architecture.md, "One document codec, native MongoDB operations in both services"). This schema names the collection for mongoose.
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
