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

/** Connections in MongoDB. Single-tenant: the tenant is the deployment's database, so it scopes nothing here. */
@Injectable()
export class MongoConnectionRepository implements ConnectionRepository, OnModuleInit {
  private readonly logger = new Logger(MongoConnectionRepository.name);

  constructor(@InjectModel(CONNECTION_MODEL) private readonly model: Model<unknown>) {}

  /** Native operations: ids stay binaries of subtype 0x00, which mongoose casting would not promise. */
  private get collection(): mongo.Collection<StoredDoc> {
    return this.model.collection as unknown as mongo.Collection<StoredDoc>;
  }

  /** Startup (single-tenant): drop the legacy indexes, then create the current ones. */
  async onModuleInit(): Promise<void> {
    const collection = this.collection;
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

  async insert(_tenant: TenantContext, connection: StoredConnection): Promise<void> {
    try {
      await this.collection.insertOne(encodeConnection(connection) as StoredDoc);
    } catch (error) {
      throw isDuplicateKey(error) ? Errors.connectionConflict() : connectionStoreError(error);
    }
  }

  findLiveById(_tenant: TenantContext, id: string): Promise<StoredConnection | undefined> {
    if (!isUuid(id)) return Promise.resolve(undefined); // no stored id is anything else
    return this.findOne({ _id: idFilter(id), deleted_at: null });
  }

  findLiveByName(_tenant: TenantContext, configName: string): Promise<StoredConnection | undefined> {
    return this.findOne({ config_name: configName, deleted_at: null });
  }

  async replace(_tenant: TenantContext, connection: StoredConnection): Promise<boolean> {
    const { _id, created_at, ...fields } = encodeConnection(connection);
    void _id;
    void created_at;
    const unset = OPTIONAL_CONNECTION_FIELDS.filter((k) => !(k in fields));
    try {
      const result = await this.collection.updateOne(
        { _id: idFilter(connection.id), deleted_at: null },
        { $set: fields, ...(unset.length > 0 ? { $unset: Object.fromEntries(unset.map((k) => [k, ''])) } : {}) },
      );
      return result.matchedCount > 0;
    } catch (error) {
      throw isDuplicateKey(error) ? Errors.connectionConflict() : connectionStoreError(error);
    }
  }

  async softDelete(_tenant: TenantContext, id: string, now: Date): Promise<boolean> {
    try {
      const result = await this.collection.updateOne({ _id: idFilter(id), deleted_at: null }, { $set: { deleted_at: now, updated_at: now } });
      return result.matchedCount > 0;
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  async assignProduct(_tenant: TenantContext, id: string, productName: string, now: Date): Promise<StoredConnection | undefined> {
    try {
      const updated = await this.collection.findOneAndUpdate(
        { _id: idFilter(id), deleted_at: null, $or: [{ product_name: '' }, { product_name: null }] },
        { $set: { product_name: productName, updated_at: now } },
        { returnDocument: 'after' },
      );
      return updated ? decodeConnection(updated) : undefined;
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  async list(_tenant: TenantContext, query: ConnectionListQuery): Promise<{ items: StoredConnection[]; total: number }> {
    const filter = listFilter(query.filter);
    const direction = query.sortOrder === 'asc' ? 1 : -1;
    try {
      const [docs, total] = await Promise.all([
        this.collection
          .find(filter)
          .sort({ created_at: direction, _id: direction })
          .skip((query.page - 1) * query.limit)
          .limit(query.limit)
          .toArray(),
        this.collection.countDocuments(filter),
      ]);
      return { items: docs.map((doc) => decodeConnection(doc)), total };
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  private async findOne(filter: Doc): Promise<StoredConnection | undefined> {
    try {
      const doc = await this.collection.findOne(filter);
      return doc ? decodeConnection(doc) : undefined;
    } catch (error) {
      throw connectionStoreError(error);
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
