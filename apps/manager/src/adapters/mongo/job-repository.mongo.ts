import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import {
  ACTIVE_HASH_INDEX, CANCELED_STATUS, createIndexArgs, encodeCancelRequest, decodeJobDocument, encodeNewJob, idFilter, indexesOwnedBy, isUuid, JOB_INDEXES, type JobDocument, terminalEventMarker, uuidToBinary,
} from '@fetcher/contracts';
import type { MappedFields, TenantContext } from '@fetcher/engine';
import { type Model, type mongo } from 'mongoose';
import type { Job, JobFilters, JobIncremental, JobStatus } from '../../jobs/job';
import type { CreateOutcome, DispatchClaim, InsertOutcome, JobListQuery, JobRepository, RetryOutcome, StaleClaim, StaleJob } from '../../ports/job-repository.port';
import { JOB_MODEL } from './job.schema';
import { isDuplicateKey, isIndexConflict, isNotFoundOnDrop } from './mongo-errors';

type JobDoc = JobDocument;

const ACTIVE: readonly JobStatus[] = ['pending', 'processing'];

/**
 * Insert attempts per job creation. Each conflict means another request stored an active job with
 * the hash, which the next look-up answers unless that job also finished (failed, or completed
 * outside the window) in between: several rounds of that are churn, not a race to win.
 */
const CREATE_ATTEMPTS = 3;

/** The active-hash index cannot be built: two active jobs share a hash. Startup stops; an operator must fix the data. */
export class ActiveHashIndexError extends Error {
  constructor() {
    super(
      `cannot create ${ACTIVE_HASH_INDEX.name}: several pending or processing jobs share a request_hash; manual cleanup required ` +
        '(fail or complete the older duplicates, then restart)',
    );
    this.name = 'ActiveHashIndexError';
  }
}

/** Where a tenant's `job` collection is: the deployment's database, or the tenant's own. */
export type JobCollectionFor = (tenant: TenantContext) => mongo.Collection<JobDoc> | Promise<mongo.Collection<JobDoc>>;

/**
 * Jobs in MongoDB, in the collection `collectionFor` gives for the request's tenant: the one shared
 * collection in single-tenant mode (`MongoJobRepository`), the tenant's own database in multi-tenant
 * mode. Driver errors are rethrown as they are: the HTTP layer answers them with the generic 500,
 * which is the contract for job-store failures, and never renders their text.
 */
export class MongoJobStore implements JobRepository {
  constructor(private readonly collectionFor: JobCollectionFor) {}

  async findById(tenant: TenantContext, id: string): Promise<Job | undefined> {
    if (!isUuid(id)) return undefined; // no stored id is anything else
    const doc = await (await this.collectionFor(tenant)).findOne({ _id: idFilter(id) });
    return doc ? toJob(doc) : undefined;
  }

  async list(tenant: TenantContext, query: JobListQuery): Promise<Job[]> {
    const filter: mongo.Filter<JobDoc> = {};
    if (query.source !== undefined) filter['metadata.source'] = query.source;
    if (query.statuses !== undefined) filter.status = { $in: [...query.statuses] };
    if (query.configName !== undefined) filter.datasources = query.configName;
    if (query.createdFrom !== undefined || query.createdTo !== undefined) {
      filter.created_at = {
        ...(query.createdFrom !== undefined ? { $gte: query.createdFrom } : {}),
        ...(query.createdTo !== undefined ? { $lt: query.createdTo } : {}),
      };
    }
    if (query.after !== undefined) {
      const { createdAt, id } = query.after;
      filter.$or = [{ created_at: { $lt: createdAt } }, { created_at: createdAt, _id: { $lt: uuidToBinary(id) } }];
    }
    const docs = await (await this.collectionFor(tenant)).find(filter, { sort: { created_at: -1, _id: -1 }, limit: query.limit }).toArray();
    return docs.map(toJob);
  }

  async findNewestByHashSince(tenant: TenantContext, hash: string, since: Date): Promise<Job | undefined> {
    const doc = await (await this.collectionFor(tenant)).findOne({ request_hash: hash, created_at: { $gte: since } }, { sort: { created_at: -1 } });
    return doc ? toJob(doc) : undefined;
  }

  async findNewestActiveByHash(tenant: TenantContext, hash: string): Promise<Job | undefined> {
    const doc = await (await this.collectionFor(tenant)).findOne({ request_hash: hash, dedup_active: true }, { sort: { created_at: -1 } });
    return doc ? toJob(doc) : undefined;
  }

  async insert(tenant: TenantContext, job: Job): Promise<InsertOutcome> {
    try {
      await (await this.collectionFor(tenant)).insertOne(encodeNewJob(job));
      return 'inserted';
    } catch (error) {
      // Ids are fresh UUIDv7s, so the only unique key a new job can collide on is the active hash.
      if (isDuplicateKey(error)) return 'duplicate_active';
      throw error;
    }
  }

  /**
   * Look up, then insert, and on a unique-index conflict look up again: the conflicting job is
   * either still active, or it just finished, and then it is reused if it completed within the
   * window (the look-up sees it), or the hash is free again and the insert is retried.
   */
  async insertUnlessReusable(tenant: TenantContext, job: Job, reusableSince: Date): Promise<CreateOutcome> {
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const existing = await this.findReusable(tenant, job.requestHash, reusableSince);
      if (existing) return { created: false, existing };
      if ((await this.insert(tenant, job)) === 'inserted') return { created: true };
    }
    return { created: false, contended: true };
  }

  private async findReusable(tenant: TenantContext, hash: string, since: Date): Promise<Job | undefined> {
    const active = await this.findNewestActiveByHash(tenant, hash);
    if (active) return active;
    const recent = await this.findNewestByHashSince(tenant, hash, since);
    return recent && recent.status !== 'failed' ? recent : undefined;
  }

  async markDispatched(tenant: TenantContext, id: string, at: Date): Promise<void> {
    await (await this.collectionFor(tenant)).updateOne({ _id: idFilter(id) }, {
      $set: { dispatched_at: at, dispatch_lock_until: null },
      $inc: { dispatch_attempts: 1 },
    });
  }

  async markDispatchFailed(tenant: TenantContext, id: string, error: string, at: Date, failedEvent?: string): Promise<boolean> {
    // The outbox marker has the Worker's names and shape: its repairer sends the stored event.
    const marker = failedEvent === undefined ? {} : terminalEventMarker('failed', failedEvent);
    const result = await (await this.collectionFor(tenant)).updateOne({ _id: idFilter(id), status: 'pending' }, {
      $set: { status: 'failed', dedup_active: false, completed_at: at, 'metadata.error': error, dispatch_lock_until: null, ...marker },
    });
    return result.modifiedCount > 0;
  }

  async cancelPending(tenant: TenantContext, id: string, at: Date, canceledEvent: string): Promise<boolean> {
    const result = await (await this.collectionFor(tenant)).updateOne({ _id: idFilter(id), status: 'pending' }, {
      $set: { status: CANCELED_STATUS, dedup_active: false, completed_at: at, dispatch_lock_until: null, ...terminalEventMarker(CANCELED_STATUS, canceledEvent) },
    });
    return result.modifiedCount > 0;
  }

  async requestCancel(tenant: TenantContext, id: string, at: Date): Promise<Job | undefined> {
    if (!isUuid(id)) return undefined;
    // `null` also matches a missing field: the first request stamps, later ones leave its time.
    const doc = await (await this.collectionFor(tenant)).findOneAndUpdate(
      { _id: idFilter(id), status: 'processing', cancel_requested_at: null },
      { $set: encodeCancelRequest(at) },
      { returnDocument: 'after' },
    );
    return doc ? toJob(doc) : this.findById(tenant, id);
  }

  /**
   * The link on the retried job is written first, conditionally, so it is the lock: of concurrent
   * retries one sets it and inserts, the others find it set. A refused insert takes it back.
   */
  async insertRetry(tenant: TenantContext, retry: Job & { readonly retryOf: string }): Promise<RetryOutcome> {
    const claimed = await (await this.collectionFor(tenant)).findOneAndUpdate(
      { _id: idFilter(retry.retryOf), status: { $in: ['failed', 'canceled'] }, retried_by: null },
      { $set: { retried_by: retry.id } },
    );
    if (!claimed) {
      const original = await this.findById(tenant, retry.retryOf);
      if (!original) return { kind: 'not_found' };
      if (original.retriedBy !== undefined) {
        const earlier = await this.findById(tenant, original.retriedBy);
        if (earlier) return { kind: 'retried_already', retry: earlier };
      }
      return { kind: 'not_retryable', status: original.status };
    }
    if ((await this.insert(tenant, retry)) === 'inserted') return { kind: 'created' };
    await (await this.collectionFor(tenant)).updateOne({ _id: idFilter(retry.retryOf), retried_by: retry.id }, { $unset: { retried_by: '' } });
    return { kind: 'duplicate_active' };
  }

  async claimUndispatched(tenant: TenantContext, claim: DispatchClaim): Promise<Job | undefined> {
    // `null` also matches a missing field: jobs written by the original service have no dispatch bookkeeping.
    const doc = await (await this.collectionFor(tenant)).findOneAndUpdate(
      {
        status: 'pending',
        dispatched_at: null,
        created_at: { $lt: claim.createdBefore },
        $or: [{ dispatch_lock_until: null }, { dispatch_lock_until: { $lt: claim.now } }],
      },
      { $set: { dispatch_lock_until: claim.lockUntil }, $inc: { dispatch_attempts: 1 } },
      { sort: { created_at: 1 }, returnDocument: 'before' },
    );
    return doc ? toJob(doc) : undefined;
  }

  async claimStale(tenant: TenantContext, claim: StaleClaim): Promise<StaleJob | undefined> {
    // `$lt` on a date matches only dates: a job never dispatched (null) is claimUndispatched's.
    const doc = await (await this.collectionFor(tenant)).findOneAndUpdate(
      {
        status: 'pending',
        dispatched_at: { $lt: claim.dispatchedBefore },
        $or: [{ dispatch_lock_until: null }, { dispatch_lock_until: { $lt: claim.now } }],
      },
      { $set: { dispatch_lock_until: claim.lockUntil }, $inc: { redispatch_count: 1 } },
      { sort: { created_at: 1 }, returnDocument: 'before' },
    );
    if (!doc) return undefined;
    return { job: toJob(doc), redispatches: decodeJobDocument(doc).redispatchCount ?? 0 };
  }
}

/**
 * Jobs in the single-tenant deployment's database, which this service also indexes at startup
 * (in multi-tenant mode indexes are managed outside the service, per tenant database).
 */
@Injectable()
export class MongoJobRepository extends MongoJobStore implements OnModuleInit {
  private readonly logger = new Logger(MongoJobRepository.name);

  constructor(@InjectModel(JOB_MODEL) private readonly model: Model<unknown>) {
    super(() => model.collection as unknown as mongo.Collection<JobDoc>);
  }

  /** Native operations keep ids as binaries of subtype 0x00, which mongoose casting would not promise. */
  private get collection(): mongo.Collection<JobDoc> {
    return this.model.collection as unknown as mongo.Collection<JobDoc>;
  }

  async onModuleInit(): Promise<void> {
    await this.ensureIndexes();
  }

  /**
   * Startup (single-tenant): the plain indexes this service owns (the Worker creates those its lease
   * reaper and event repairer query), then the active-hash index through its migration:
   * an index of that name with another definition (an older release's) is dropped, `dedup_active`
   * is backfilled from the status, and only then is the unique index built.
   */
  async ensureIndexes(): Promise<void> {
    const collection = this.collection;
    for (const index of indexesOwnedBy('manager', JOB_INDEXES)) {
      try {
        await collection.createIndex(...createIndexArgs(index));
      } catch (error) {
        if (!isIndexConflict(error)) throw error;
      }
    }
    const existing = (await this.listIndexes()).find((index) => index.name === ACTIVE_HASH_INDEX.name);
    if (existing && !isActiveHashIndex(existing)) {
      await collection.dropIndex(ACTIVE_HASH_INDEX.name);
      this.logger.warn(`dropped ${ACTIVE_HASH_INDEX.name}: its definition differed from this release's`);
    }
    await collection.updateMany({ status: { $in: [...ACTIVE] }, dedup_active: { $ne: true } }, { $set: { dedup_active: true } });
    await collection.updateMany({ status: { $nin: [...ACTIVE] }, dedup_active: { $ne: false } }, { $set: { dedup_active: false } });
    try {
      await collection.createIndex(...createIndexArgs(ACTIVE_HASH_INDEX));
    } catch (error) {
      if (isDuplicateKey(error)) throw new ActiveHashIndexError();
      if (!isIndexConflict(error)) throw error;
    }
  }

  private async listIndexes(): Promise<mongo.Document[]> {
    try {
      return (await this.collection.listIndexes().toArray()) as mongo.Document[];
    } catch (error) {
      if (isNotFoundOnDrop(error)) return []; // no collection yet
      throw error;
    }
  }
}

function isActiveHashIndex(index: mongo.Document): boolean {
  const key = index.key as Record<string, unknown> | undefined;
  const partial = index.partialFilterExpression as Record<string, unknown> | undefined;
  return (
    index.unique === true &&
    key !== undefined &&
    Object.keys(key).length === 1 &&
    key.request_hash === 1 &&
    partial !== undefined &&
    Object.keys(partial).length === 1 &&
    partial.dedup_active === true
  );
}

function toJob(doc: JobDoc): Job {
  const read = decodeJobDocument(doc);
  return {
    id: read.id,
    status: read.status as JobStatus,
    mappedFields: (read.mappedFields ?? {}) as MappedFields,
    ...(hasKeys(read.filters) ? { filters: read.filters as JobFilters } : {}),
    ...(hasKeys(read.incremental) ? { incremental: read.incremental as JobIncremental } : {}),
    metadata: read.metadata,
    requestHash: read.requestHash ?? '',
    createdAt: read.createdAt as Date,
    completedAt: read.completedAt ?? null,
    ...(read.resultPath !== undefined ? { resultPath: read.resultPath } : {}),
    ...(read.resultHmac !== undefined ? { resultHmac: read.resultHmac } : {}),
    ...(read.cursors !== undefined ? { cursors: read.cursors } : {}),
    ...(read.resultStats !== undefined ? { resultStats: read.resultStats } : {}),
    dispatchedAt: read.dispatchedAt ?? null,
    dispatchAttempts: read.dispatchAttempts ?? 0,
    ...(read.progress ? { progress: read.progress } : {}),
    ...(read.cancelRequestedAt ? { cancelRequestedAt: read.cancelRequestedAt } : {}),
    ...(read.retryOf !== undefined ? { retryOf: read.retryOf } : {}),
    ...(read.retriedBy !== undefined ? { retriedBy: read.retriedBy } : {}),
  };
}

function hasKeys(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}
