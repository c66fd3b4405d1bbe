import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import {
  CONNECTION_INDEXES, createIndexArgs, decodeConnection, encodeConnection, idFilter, indexesOwnedBy, isUuid, LEGACY_CONNECTION_INDEXES, OPTIONAL_CONNECTION_FIELDS,
} from '@fetcher/contracts';
import type { TenantContext } from '@fetcher/engine';
import { type Model, type mongo } from 'mongoose';
import { Errors } from '../../errors/catalogue';
import type {
  ConnectionListFilter,
  ConnectionListQuery,
  ConnectionRepository,
  StoredConnection,
} from '../../ports/connection-repository.port';
import { CONNECTION_MODEL } from './connection.schema';
import { connectionStoreError, isDuplicateKey, isIndexConflict, isNotFoundOnDrop } from './mongo-errors';

type Doc = Record<string, unknown>;
type StoredDoc = { _id: mongo.Binary } & Record<string, unknown>;

/** Where a tenant's `connection` collection is: the deployment's database, or the tenant's own. */
export type ConnectionCollectionFor = (tenant: TenantContext) => mongo.Collection<StoredDoc> | Promise<mongo.Collection<StoredDoc>>;

/**
 * Connections in MongoDB, in the collection `collectionFor` gives for the request's tenant. The
 * documents carry no tenant field: the database is the tenant's scope. Native operations keep ids
 * binaries of subtype 0x00, which mongoose casting would not promise.
 */
export class MongoConnectionStore implements ConnectionRepository {
  constructor(private readonly collectionFor: ConnectionCollectionFor) {}

  async insert(tenant: TenantContext, connection: StoredConnection): Promise<void> {
    try {
      await (await this.collectionFor(tenant)).insertOne(encodeConnection(connection) as StoredDoc);
    } catch (error) {
      throw isDuplicateKey(error) ? Errors.connectionConflict() : connectionStoreError(error);
    }
  }

  findLiveById(tenant: TenantContext, id: string): Promise<StoredConnection | undefined> {
    if (!isUuid(id)) return Promise.resolve(undefined); // no stored id is anything else
    return this.findOne(tenant, { _id: idFilter(id), deleted_at: null });
  }

  findLiveByName(tenant: TenantContext, configName: string): Promise<StoredConnection | undefined> {
    return this.findOne(tenant, { config_name: configName, deleted_at: null });
  }

  async replace(tenant: TenantContext, connection: StoredConnection): Promise<boolean> {
    const { _id, created_at, ...fields } = encodeConnection(connection);
    void _id;
    void created_at;
    const unset = OPTIONAL_CONNECTION_FIELDS.filter((k) => !(k in fields));
    try {
      const result = await (await this.collectionFor(tenant)).updateOne(
        { _id: idFilter(connection.id), deleted_at: null },
        { $set: fields, ...(unset.length > 0 ? { $unset: Object.fromEntries(unset.map((k) => [k, ''])) } : {}) },
      );
      return result.matchedCount > 0;
    } catch (error) {
      throw isDuplicateKey(error) ? Errors.connectionConflict() : connectionStoreError(error);
    }
  }

  async softDelete(tenant: TenantContext, id: string, now: Date): Promise<boolean> {
    try {
      const result = await (await this.collectionFor(tenant)).updateOne({ _id: idFilter(id), deleted_at: null }, { $set: { deleted_at: now, updated_at: now } });
      return result.matchedCount > 0;
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  async assignProduct(tenant: TenantContext, id: string, productName: string, now: Date): Promise<StoredConnection | undefined> {
    try {
      const updated = await (await this.collectionFor(tenant)).findOneAndUpdate(
        { _id: idFilter(id), deleted_at: null, $or: [{ product_name: '' }, { product_name: null }] },
        { $set: { product_name: productName, updated_at: now } },
        { returnDocument: 'after' },
      );
      return updated ? decodeConnection(updated) : undefined;
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  async list(tenant: TenantContext, query: ConnectionListQuery): Promise<{ items: StoredConnection[]; total: number }> {
    const filter = listFilter(query.filter);
    const direction = query.sortOrder === 'asc' ? 1 : -1;
    try {
      const collection = await this.collectionFor(tenant);
      const [docs, total] = await Promise.all([
        collection
          .find(filter)
          .sort({ created_at: direction, _id: direction })
          .skip((query.page - 1) * query.limit)
          .limit(query.limit)
          .toArray(),
        collection.countDocuments(filter),
      ]);
      return { items: docs.map((doc) => decodeConnection(doc)), total };
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  private async findOne(tenant: TenantContext, filter: Doc): Promise<StoredConnection | undefined> {
    try {
      const doc = await (await this.collectionFor(tenant)).findOne(filter);
      return doc ? decodeConnection(doc) : undefined;
    } catch (error) {
      throw connectionStoreError(error);
    }
  }
}

/** Connections in the single-tenant deployment's database, which this service also indexes at startup. */
@Injectable()
export class MongoConnectionRepository extends MongoConnectionStore implements OnModuleInit {
  private readonly logger = new Logger(MongoConnectionRepository.name);

  constructor(@InjectModel(CONNECTION_MODEL) private readonly model: Model<unknown>) {
    super(() => model.collection as unknown as mongo.Collection<StoredDoc>);
  }

  /** Startup (single-tenant): drop the legacy indexes, then create the current ones. */
  async onModuleInit(): Promise<void> {
    const collection = this.model.collection as unknown as mongo.Collection<StoredDoc>;
    for (const name of LEGACY_CONNECTION_INDEXES) {
      try {
        await collection.dropIndex(name);
        this.logger.log(`dropped legacy index ${name}`);
      } catch (error) {
        if (!isNotFoundOnDrop(error)) throw connectionStoreError(error);
      }
    }
    for (const index of indexesOwnedBy('manager', CONNECTION_INDEXES)) {
      try {
        await collection.createIndex(...createIndexArgs(index));
      } catch (error) {
        if (!isIndexConflict(error)) throw connectionStoreError(error);
      }
    }
  }
}

function listFilter(filter: ConnectionListFilter): Doc {
  const out: Doc = { deleted_at: null };
  if (filter.unassignedOnly) out.$or = [{ product_name: '' }, { product_name: null }];
  if (filter.productName !== undefined) out.product_name = filter.productName;
  if (filter.type !== undefined) out.type = filter.type;
  if (filter.host !== undefined) out.host = filter.host;
  if (filter.databaseName !== undefined) out.database_name = filter.databaseName;
  for (const [key, value] of Object.entries(filter.metadata ?? {})) out[`metadata.${key}`] = value;
  if (filter.createdFrom || filter.createdBefore) {
    out.created_at = { ...(filter.createdFrom ? { $gte: filter.createdFrom } : {}), ...(filter.createdBefore ? { $lt: filter.createdBefore } : {}) };
  }
  return out;
}
