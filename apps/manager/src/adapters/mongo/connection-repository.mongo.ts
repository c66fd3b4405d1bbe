import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { TenantContext } from '@fetcher/engine';
import { type Model, type mongo } from 'mongoose';
import { Errors } from '../../errors/catalogue';
import type {
  ConnectionListFilter,
  ConnectionListQuery,
  ConnectionRepository,
  StoredConnection,
  StoredSsl,
} from '../../ports/connection-repository.port';
import { CONNECTION_INDEXES, CONNECTION_MODEL, LEGACY_CONNECTION_INDEXES } from './connection.schema';
import { connectionStoreError, isDuplicateKey, isIndexConflict, isNotFoundOnDrop } from './mongo-errors';
import { binaryToUuid, idFilter, uuidToBinary } from './uuid-binary';

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
    for (const { key, ...options } of CONNECTION_INDEXES) {
      try {
        await collection.createIndex({ ...key }, { ...options });
      } catch (error) {
        if (!isIndexConflict(error)) throw connectionStoreError(error);
      }
    }
  }

  async insert(_tenant: TenantContext, connection: StoredConnection): Promise<void> {
    try {
      await this.collection.insertOne(toDocument(connection) as StoredDoc);
    } catch (error) {
      throw isDuplicateKey(error) ? Errors.connectionConflict() : connectionStoreError(error);
    }
  }

  findLiveById(_tenant: TenantContext, id: string): Promise<StoredConnection | undefined> {
    return this.findOne({ _id: idFilter(id), deleted_at: null });
  }

  findLiveByName(_tenant: TenantContext, configName: string): Promise<StoredConnection | undefined> {
    return this.findOne({ config_name: configName, deleted_at: null });
  }

  async replace(_tenant: TenantContext, connection: StoredConnection): Promise<boolean> {
    const { _id, created_at, ...fields } = toDocument(connection);
    void _id;
    void created_at;
    const unset = ['schema', 'ssl', 'metadata'].filter((k) => !(k in fields));
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
      return updated ? fromDocument(updated) : undefined;
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
      return { items: docs.map(fromDocument), total };
    } catch (error) {
      throw connectionStoreError(error);
    }
  }

  private async findOne(filter: Doc): Promise<StoredConnection | undefined> {
    try {
      const doc = await this.collection.findOne(filter);
      return doc ? fromDocument(doc) : undefined;
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

function toDocument(c: StoredConnection): Doc {
  const doc: Doc = {
    _id: uuidToBinary(c.id),
    product_name: c.productName,
    config_name: c.configName,
    type: c.type,
    host: c.host,
    port: c.port,
    database_name: c.databaseName,
    username: c.userName,
    password_encrypted: c.passwordEncrypted,
    encryption_key_version: c.keyVersion,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    deleted_at: null,
  };
  if (c.schema !== undefined) doc.schema = c.schema;
  if (c.ssl) {
    const ssl: Doc = { mode: c.ssl.mode };
    if (c.ssl.caEncrypted) ssl.ca_encrypted = c.ssl.caEncrypted;
    if (c.ssl.certEncrypted) ssl.cert_encrypted = c.ssl.certEncrypted;
    if (c.ssl.keyEncrypted) ssl.key_encrypted = c.ssl.keyEncrypted;
    doc.ssl = ssl;
  }
  if (c.metadata && Object.keys(c.metadata).length > 0) doc.metadata = c.metadata;
  return doc;
}

function fromDocument(doc: Doc): StoredConnection {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const ssl = doc.ssl && typeof doc.ssl === 'object' ? (doc.ssl as Doc) : undefined;
  const metadata = doc.metadata && typeof doc.metadata === 'object' && !Array.isArray(doc.metadata) ? (doc.metadata as Doc) : undefined;
  const storedSsl: StoredSsl | undefined = ssl
    ? {
        mode: str(ssl.mode),
        ...(ssl.ca_encrypted ? { caEncrypted: str(ssl.ca_encrypted) } : {}),
        ...(ssl.cert_encrypted ? { certEncrypted: str(ssl.cert_encrypted) } : {}),
        ...(ssl.key_encrypted ? { keyEncrypted: str(ssl.key_encrypted) } : {}),
        // Plaintext material from the original service: readable until the next PATCH encrypts it.
        ...(ssl.ca ? { legacyCa: str(ssl.ca) } : {}),
        ...(ssl.cert ? { legacyCert: str(ssl.cert) } : {}),
        ...(ssl.key ? { legacyKey: str(ssl.key) } : {}),
      }
    : undefined;
  return {
    id: binaryToUuid(doc._id),
    productName: str(doc.product_name),
    configName: str(doc.config_name),
    type: str(doc.type),
    host: str(doc.host),
    port: typeof doc.port === 'number' ? doc.port : Number(doc.port ?? 0),
    databaseName: str(doc.database_name),
    ...(typeof doc.schema === 'string' ? { schema: doc.schema } : {}),
    userName: str(doc.username),
    passwordEncrypted: str(doc.password_encrypted),
    keyVersion: str(doc.encryption_key_version),
    ...(storedSsl ? { ssl: storedSsl } : {}),
    ...(metadata ? { metadata } : {}),
    createdAt: doc.created_at instanceof Date ? doc.created_at : new Date(0),
    updatedAt: doc.updated_at instanceof Date ? doc.updated_at : new Date(0),
  };
}
