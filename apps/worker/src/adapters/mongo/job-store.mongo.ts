import { type Binary, BSON, type Collection, type Db, type Document, type Filter, MongoServerError, MongoWriteConcernError } from 'mongodb';
import {
  type JobLease,
  type JobProgress,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type TerminalGuard,
  type TerminalWrite,
  TerminalWriteRefused,
} from '../../ports/job-store.port';
import { binaryToUuid, uuidFilter } from './uuid-binary';

/** Job ids are binaries (UUIDs), not ObjectIds. */
type JobDocument = Document & { _id: Binary };

const TERMINAL_MARKER_KEYS = ['metadata.terminalEventPending', 'metadata.terminalEventStatus', 'metadata.terminalEventPayload'];

/**
 * The `job` collection, shared with the Manager. Every write keeps `dedup_active` equal to
 * "pending or processing", and every state change is a single conditional update, so two workers
 * can never both believe they own a job or both finish it.
 */
export class MongoJobStore implements JobStore {
  readonly #jobs: Collection<JobDocument>;

  constructor(db: Db) {
    this.#jobs = db.collection<JobDocument>('job');
  }

  async find(jobId: string): Promise<JobRecord | undefined> {
    const doc = await this.#jobs.findOne({ _id: uuidFilter(jobId) });
    return doc ? toRecord(doc) : undefined;
  }

  async acquire(jobId: string, lease: JobLease, now: Date): Promise<JobRecord | undefined> {
    const doc = await this.#jobs.findOneAndUpdate(
      {
        _id: uuidFilter(jobId),
        $or: [
          { status: 'pending' },
          { status: 'processing', $or: [{ 'lease.expires_at': { $lt: now } }, { lease: { $exists: false } }] },
        ],
      },
      {
        $set: { status: 'processing', dedup_active: true, lease: { token: lease.token, owner: lease.owner, expires_at: lease.expiresAt } },
        $unset: { completed_at: '' },
      },
      { returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : undefined;
  }

  async renew(jobId: string, token: string, expiresAt: Date): Promise<boolean> {
    const result = await this.#jobs.updateOne(
      { _id: uuidFilter(jobId), status: 'processing', 'lease.token': token },
      { $set: { 'lease.expires_at': expiresAt } },
    );
    return result.matchedCount === 1;
  }

  async writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    await this.#jobs.updateOne(
      { _id: uuidFilter(jobId), status: 'processing', 'lease.token': token },
      { $set: { progress: { tables_done: progress.tablesDone, rows_so_far: progress.rowsSoFar, updated_at: progress.updatedAt } } },
    );
  }

  async writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    const set: Document = {
      status: write.status,
      dedup_active: false,
      completed_at: write.completedAt,
      'metadata.terminalEventPending': true,
      'metadata.terminalEventStatus': write.status,
      'metadata.terminalEventPayload': write.eventPayload,
    };
    if (write.resultPath) set.result_path = write.resultPath;
    if (write.resultHmac) set.result_hmac = write.resultHmac;
    if (write.error !== undefined) set['metadata.error'] = write.error;
    try {
      const result = await this.#jobs.updateOne({ _id: uuidFilter(jobId), ...guardFilter(guard) }, { $set: set, $unset: { lease: '' } });
      return result.matchedCount === 1;
    } catch (error) {
      throw refusedAsWritten(error) ? new TerminalWriteRefused({ cause: error }) : error;
    }
  }

  async clearEventMarker(jobId: string): Promise<void> {
    await this.#jobs.updateOne({ _id: uuidFilter(jobId) }, { $unset: Object.fromEntries(TERMINAL_MARKER_KEYS.map((k) => [k, ''])) });
  }

  async pendingEvents(limit: number): Promise<JobRecord[]> {
    const capped = limit <= 0 || limit > 50 ? 10 : limit;
    const docs = await this.#jobs
      .find({ 'metadata.terminalEventPending': true, status: { $in: ['completed', 'failed'] } })
      .sort({ completed_at: 1, created_at: 1 })
      .limit(capped)
      .toArray();
    return docs.map(toRecord);
  }

  async abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]> {
    const docs = await this.#jobs
      .find({
        status: 'processing',
        $or: [
          { 'lease.expires_at': { $lt: new Date(now.getTime() - ttlMs) } },
          { lease: { $exists: false }, created_at: { $lt: new Date(now.getTime() - leaselessAgeMs) } },
        ],
      })
      .limit(50)
      .toArray();
    return docs.map(toRecord);
  }
}

/**
 * The write itself is the problem, not the way to the database: the server answered with an error
 * that is not marked as transient (a retryable write that failed over, say, carries a label), or the
 * driver could not encode it. Write-concern errors are left out: the write may have been applied.
 */
function refusedAsWritten(error: unknown): boolean {
  if (error instanceof BSON.BSONError) return true;
  if (!(error instanceof MongoServerError) || error instanceof MongoWriteConcernError) return false;
  return !error.hasErrorLabel('RetryableWriteError') && !error.hasErrorLabel('TransientTransactionError');
}

function guardFilter(guard: TerminalGuard): Filter<JobDocument> {
  switch (guard.kind) {
    case 'lease':
      return { status: 'processing', 'lease.token': guard.token };
    case 'pending':
      return { status: 'pending' };
    case 'observed':
      return guard.token === undefined ? { status: 'processing', lease: { $exists: false } } : { status: 'processing', 'lease.token': guard.token };
  }
}

function toRecord(doc: Document): JobRecord {
  const lease = doc.lease as { token?: unknown; owner?: unknown; expires_at?: unknown } | undefined;
  return {
    id: binaryToUuid(doc._id),
    status: doc.status as JobStatus,
    metadata: (doc.metadata as Record<string, unknown> | undefined) ?? {},
    ...(doc.mapped_fields !== undefined ? { mappedFields: doc.mapped_fields } : {}),
    ...(doc.filters !== undefined ? { filters: doc.filters } : {}),
    ...(doc.created_at instanceof Date ? { createdAt: doc.created_at } : {}),
    ...(doc.completed_at instanceof Date ? { completedAt: doc.completed_at } : {}),
    ...(lease && typeof lease.token === 'string' && lease.expires_at instanceof Date
      ? { lease: { token: lease.token, owner: String(lease.owner), expiresAt: lease.expires_at } }
      : {}),
  };
}
