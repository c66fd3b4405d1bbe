import {
  CANCEL_REQUESTED_AT_FIELD,
  createIndexArgs, decodeJobDocument, encodeLease, encodeProgress, encodeResultStats, idFilter, indexesOwnedBy, JOB_COLLECTION, JOB_INDEXES, type JobDocument,
  TERMINAL_EVENT_MARKER_KEYS, terminalEventMarker,
} from '@fetcher/contracts';
import { Logger } from '@nestjs/common';
import { BSON, type Collection, type Db, type Document, type Filter, MongoServerError, MongoWriteConcernError } from 'mongodb';
import {
  type AcquiredJob,
  type JobLease,
  type JobProgress,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type LeaseRenewal,
  type TerminalGuard,
  type TerminalWrite,
  TerminalWriteRefused,
} from '../../ports/job-store.port';

/** Index conflicts on create (same name, other options; same key, other name): the index is there already. */
const INDEX_CONFLICTS = new Set([85, 86]);

/**
 * The `job` collection, shared with the Manager. Every write keeps `dedup_active` equal to
 * "pending or processing", and every state change is a single conditional update, so two workers
 * can never both believe they own a job or both finish it.
 */
export class MongoJobStore implements JobStore {
  readonly #jobs: Collection<JobDocument>;
  readonly #logger = new Logger(MongoJobStore.name);
  #indexes: Promise<void> | undefined;

  constructor(db: Db) {
    this.#jobs = db.collection<JobDocument>(JOB_COLLECTION);
  }

  /**
   * The indexes the Worker owns: those of the lease reaper (`abandoned`) and the event repairer
   * (`pendingEvents`). Created once, before the first of those queries rather than at startup, because
   * the client connects on first use (a database that is down at start must not stop the process).
   * A failure is logged (without the driver's text) and tried again before the next such query; the
   * query still runs, since an index only speeds it up.
   */
  async #withIndexes(): Promise<void> {
    try {
      await this.#ensureIndexes();
    } catch (error) {
      const code = error instanceof MongoServerError ? ` (server code ${String(error.code)})` : '';
      this.#logger.warn(`could not create the Worker's job indexes${code}; trying again on the next reaper or repairer query`);
    }
  }

  #ensureIndexes(): Promise<void> {
    this.#indexes ??= this.#createIndexes().catch((error: unknown) => {
      this.#indexes = undefined;
      throw error;
    });
    return this.#indexes;
  }

  async #createIndexes(): Promise<void> {
    for (const index of indexesOwnedBy('worker', JOB_INDEXES)) {
      try {
        await this.#jobs.createIndex(...createIndexArgs(index));
      } catch (error) {
        if (!(error instanceof MongoServerError && typeof error.code === 'number' && INDEX_CONFLICTS.has(error.code))) throw error;
      }
    }
  }

  async find(jobId: string): Promise<JobRecord | undefined> {
    const doc = await this.#jobs.findOne({ _id: idFilter(jobId) });
    return doc ? toRecord(doc) : undefined;
  }

  /**
   * The document comes back as it was before the update, which says whether this is a takeover;
   * the job under the new lease is that document with the update's three changes applied.
   */
  async acquire(jobId: string, lease: JobLease, now: Date): Promise<AcquiredJob | undefined> {
    const before = await this.#jobs.findOneAndUpdate(
      {
        _id: idFilter(jobId),
        'metadata.terminalEventPending': { $ne: true },
        $or: [
          { status: 'pending' },
          { status: 'processing', $or: [{ 'lease.expires_at': { $lt: now } }, { lease: { $exists: false } }] },
        ],
      },
      {
        $set: { status: 'processing', dedup_active: true, lease: encodeLease(lease) },
        $unset: { completed_at: '' },
      },
      { returnDocument: 'before' },
    );
    if (!before) return undefined;
    const { completedAt: _unset, ...job } = toRecord(before);
    return { job: { ...job, status: 'processing', lease: { ...lease } }, takeover: before.status === 'processing' };
  }

  async renew(jobId: string, token: string, expiresAt: Date): Promise<LeaseRenewal> {
    const doc = await this.#jobs.findOneAndUpdate(
      { _id: idFilter(jobId), status: 'processing', 'lease.token': token },
      { $set: { 'lease.expires_at': expiresAt } },
      { returnDocument: 'after', projection: { _id: 1, status: 1, [CANCEL_REQUESTED_AT_FIELD]: 1 } },
    );
    if (!doc) return { held: false };
    const { cancelRequestedAt } = decodeJobDocument(doc);
    return cancelRequestedAt ? { held: true, cancelRequestedAt } : { held: true };
  }

  async writeProgress(jobId: string, token: string, progress: JobProgress): Promise<void> {
    await this.#jobs.updateOne(
      { _id: idFilter(jobId), status: 'processing', 'lease.token': token },
      { $set: { progress: encodeProgress(progress) } },
    );
  }

  async writeTerminal(jobId: string, guard: TerminalGuard, write: TerminalWrite): Promise<boolean> {
    const set: Document = {
      status: write.status,
      dedup_active: false,
      completed_at: write.completedAt,
      ...terminalEventMarker(write.status, write.eventPayload),
    };
    if (write.resultPath) set.result_path = write.resultPath;
    if (write.resultHmac) set.result_hmac = write.resultHmac;
    if (write.cursors) set.cursors = write.cursors;
    if (write.resultStats) set.result_stats = encodeResultStats(write.resultStats);
    if (write.error !== undefined) set['metadata.error'] = write.error;
    if (write.progress) set.progress = encodeProgress(write.progress);
    try {
      const result = await this.#jobs.updateOne({ _id: idFilter(jobId), ...guardFilter(guard) }, { $set: set, $unset: { lease: '' } });
      return result.matchedCount === 1;
    } catch (error) {
      throw refusedAsWritten(error) ? new TerminalWriteRefused({ cause: error }) : error;
    }
  }

  async clearEventMarker(jobId: string): Promise<void> {
    await this.#jobs.updateOne({ _id: idFilter(jobId) }, { $unset: Object.fromEntries(TERMINAL_EVENT_MARKER_KEYS.map((k) => [k, ''])) });
  }

  async pendingEvents(limit: number): Promise<JobRecord[]> {
    await this.#withIndexes();
    const capped = limit <= 0 || limit > 50 ? 10 : limit;
    const docs = await this.#jobs
      .find({ 'metadata.terminalEventPending': true, status: { $in: ['completed', 'failed', 'canceled'] } })
      .sort({ completed_at: 1, created_at: 1 })
      .limit(capped)
      .toArray();
    return docs.map(toRecord);
  }

  async abandoned(now: Date, ttlMs: number, leaselessAgeMs: number): Promise<JobRecord[]> {
    await this.#withIndexes();
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
  const read = decodeJobDocument(doc);
  return {
    id: read.id,
    status: read.status as JobStatus,
    metadata: read.metadata,
    ...('mappedFields' in read ? { mappedFields: read.mappedFields } : {}),
    ...('filters' in read ? { filters: read.filters } : {}),
    ...('incremental' in read ? { incremental: read.incremental } : {}),
    ...(read.createdAt ? { createdAt: read.createdAt } : {}),
    ...(read.completedAt ? { completedAt: read.completedAt } : {}),
    ...(read.lease ? { lease: read.lease } : {}),
    ...(read.progress?.updatedAt ? { progress: { tablesDone: read.progress.tablesDone, rowsSoFar: read.progress.rowsSoFar, updatedAt: read.progress.updatedAt } } : {}),
    ...(read.cancelRequestedAt ? { cancelRequestedAt: read.cancelRequestedAt } : {}),
  };
}
