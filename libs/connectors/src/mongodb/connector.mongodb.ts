/**
 * The MongoDB connector. One client (pool of at most 2) per
 * connector, opened by testConnection; the collections and their inferred kinds are cached and
 * reused by queryStream for collection names, projections and filter coercion.
 */
import { MongoClient, type Db, type MongoClientOptions, type Sort } from 'mongodb';
import {
  EngineError,
  compareUtf8,
  type ColumnKind,
  type ConnectionDescriptor,
  type ConnectionSecrets,
  type Connector,
  type QueryRequest,
  type RowCursor,
  type SchemaSnapshot,
  type TableSchema,
} from '@fetcher/engine';
import { connectorAttributes, connectorSecrets, type ConnectorAttributes } from '../common/attributes';
import { connectError } from '../common/errors';
import { resolveDialTarget, type DialTarget } from '../common/host-safety';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import { queryTimeoutMs, type ConnectorTimeouts } from '../common/timeouts';
import { abortError, raceAbort, throwIfAborted, withTimeout } from '../common/abort';
import { SequentialTableCursor, openAsItems } from '../common/table-cursor';
import { mongoClientOptions, mongoConnectionString } from './client-options.mongodb';
import { buildFilterDocument } from './filter-document.mongodb';
import { mongoKeyset } from './incremental-query.mongodb';
import { pinnedLookup } from './pinned-lookup.mongodb';
import { projectionFor } from './projection.mongodb';
import { inferCollectionSchema, listCollectionKeys } from './schema-discovery.mongodb';
import { MongoTableRows } from './table-rows.mongodb';
import { mongoConnectReason } from './connect-reason.mongodb';

/** The slice of MongoClient the connector uses; unit tests substitute it. */
export interface MongoClientLike {
  connect(): Promise<unknown>;
  db(name: string): Db;
  close(): Promise<void>;
}

export type MongoClientFactory = (uri: string, options: MongoClientOptions) => MongoClientLike;

const defaultClientFactory: MongoClientFactory = (uri, options) => new MongoClient(uri, options);

/** Rows per server round trip. */
export const MONGO_BATCH_SIZE = 256;

/** What the server is asked for to read one table. */
interface CollectionQuery {
  readonly collection: string;
  readonly filter: Record<string, unknown>;
  readonly projection?: Record<string, unknown>;
  readonly maxTimeMS: number;
  /** Incremental tables only: the keyset order and the row limit. */
  readonly sort?: Sort;
  readonly limit?: number;
}

/**
 * Every field is `#private`: the secrets, and the client whose options and URI carry the password,
 * must not show through JSON.stringify or util.inspect of a connector a host logs.
 */
export class MongoConnector implements Connector {
  /** Incremental tables read with a keyset filter, sort and limit (incremental-query.mongodb.ts). */
  readonly supportsIncremental = true;
  readonly #descriptor: ConnectionDescriptor;
  readonly #options: ConnectorOptions;
  readonly #createClient: MongoClientFactory;
  readonly #attributes: ConnectorAttributes;
  readonly #secrets: ConnectionSecrets;
  readonly #timeouts: ConnectorTimeouts;
  #client: MongoClientLike | undefined;
  #db: Db | undefined;
  #closed = false;
  /** Normalised key -> collection name, from the first listCollections. */
  #collections: Map<string, string> | undefined;
  /** Inferred schemas by normalised key: all of them after discoverSchema, else those queried. */
  readonly #schemas = new Map<string, TableSchema>();
  #snapshot: SchemaSnapshot | undefined;

  constructor(descriptor: ConnectionDescriptor, options: ConnectorOptions, createClient: MongoClientFactory = defaultClientFactory) {
    this.#descriptor = descriptor;
    this.#options = options;
    this.#createClient = createClient;
    this.#attributes = connectorAttributes(descriptor);
    this.#secrets = connectorSecrets(descriptor);
    this.#timeouts = resolveTimeouts(options);
  }

  async testConnection(signal: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    if (this.#closed) throw connectError();
    try {
      if (this.#db) {
        await this.#ping(this.#db, signal);
        return;
      }
      await this.#open(signal);
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      // A denied host stays a validation error (FET-0414); everything else is a connect failure,
      // whose driver text (it may quote the connection string) stays the hidden cause.
      if (error instanceof EngineError && error.category === 'validation') throw error;
      throw error instanceof EngineError && error.category === 'connect' ? error : connectError(error, mongoConnectReason(error));
    }
  }

  async discoverSchema(signal: AbortSignal): Promise<SchemaSnapshot> {
    const db = await this.#connected(signal);
    if (this.#snapshot) return this.#snapshot;
    const budget = withTimeout(signal, this.#timeouts.discoveryMs);
    const collections = await this.#collectionMap(db, budget);
    const tables: TableSchema[] = [];
    for (const key of [...collections.keys()].sort(compareUtf8)) tables.push(await this.#tableSchema(db, key, budget));
    this.#snapshot = { configName: this.#descriptor.configName, tables };
    return this.#snapshot;
  }

  async queryStream(request: QueryRequest, signal: AbortSignal): Promise<RowCursor> {
    const db = await this.#connected(signal);
    const tables = Object.keys(request.tables).sort(compareUtf8);
    // Every table is resolved before the first row moves: a bad name fails the step up front. Only
    // the requested collections are inferred when this connector has not discovered them yet.
    const queries = new Map<string, CollectionQuery>();
    if (tables.length > 0) {
      const budget = withTimeout(signal, this.#timeouts.discoveryMs);
      const collections = await this.#collectionMap(db, budget);
      for (const table of tables) {
        const collection = collections.get(table);
        if (collection === undefined) throw new EngineError('validation', 'table not found in datasource schema');
        queries.set(table, this.#collectionQuery(request, table, collection, await this.#tableSchema(db, table, budget)));
      }
    }
    const open = (table: string, tableSignal: AbortSignal) => Promise.resolve(this.#openTable(db, queries.get(table)!, tableSignal));
    return new SequentialTableCursor(tables, openAsItems(open), signal);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    this.#db = undefined;
    await client?.close();
  }

  async #open(signal: AbortSignal): Promise<void> {
    const { host } = this.#descriptor;
    const { hostSafety, lookup } = this.#options;
    const exempt = this.#attributes.internal === true;
    const budget = withTimeout(signal, this.#timeouts.mongoConnectMs);
    const target = await resolveDialTarget(host, hostSafety, { lookup, signal: budget, exempt });
    // Members the driver discovers later (replica sets) pass the same guard when dialled.
    const resolveOther = (name: string): Promise<DialTarget> => resolveDialTarget(name, hostSafety, { lookup, exempt });
    const client = this.#createClient(
      mongoConnectionString(this.#descriptor, this.#attributes, this.#secrets),
      mongoClientOptions(this.#descriptor.sslMode ?? '', this.#secrets, this.#timeouts, pinnedLookup(host, target, resolveOther)),
    );
    try {
      // connect() takes no signal; serverSelectionTimeoutMS bounds it, an abort stops the wait.
      await raceAbort(client.connect(), signal);
      const db = client.db(this.#descriptor.databaseName);
      await this.#ping(db, signal);
      this.#client = client;
      this.#db = db;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  async #ping(db: Db, signal: AbortSignal): Promise<void> {
    await db.command({ ping: 1 }, { signal: withTimeout(signal, this.#timeouts.mongoConnectMs) });
  }

  async #connected(signal: AbortSignal): Promise<Db> {
    if (this.#closed) throw new EngineError('unavailable', 'connector is closed');
    if (!this.#db) await this.testConnection(signal);
    return this.#db!;
  }

  #openTable(db: Db, query: CollectionQuery, signal: AbortSignal): MongoTableRows {
    const cursor = db.collection(query.collection).find(query.filter, {
      ...(query.projection ? { projection: query.projection } : {}),
      ...(query.sort ? { sort: query.sort } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      batchSize: MONGO_BATCH_SIZE,
      maxTimeMS: query.maxTimeMS,
      // Raw bytes: each document is decoded on its own, so an undecodable one is skipped.
      raw: true,
      // The driver closes the cursor (killCursors) when the signal aborts.
      signal,
    });
    return new MongoTableRows(cursor);
  }

  #collectionQuery(request: QueryRequest, table: string, collection: string, schema: TableSchema): CollectionQuery {
    const kinds = new Map<string, ColumnKind>((schema.columns ?? []).map((column) => [column.name, column.kind]));
    const path = `${request.configName}.${table}`;
    const filters = buildFilterDocument(request.filters?.[table], kinds, path);
    const projection = projectionFor(request.tables[table], schema.fields);
    const incremental = request.incremental?.[table];
    const keyset = incremental ? mongoKeyset(incremental, path) : undefined;
    // Both must hold: the filters' keys and the keyset's `$or` never share a level.
    const filter = keyset && Object.keys(keyset.filter).length > 0 ? (Object.keys(filters).length > 0 ? { $and: [filters, keyset.filter] } : keyset.filter) : filters;
    const maxTimeMS = queryTimeoutMs(this.#timeouts, Object.keys(filter).length > 0 || keyset !== undefined);
    const order = keyset ? { sort: keyset.sort as Sort, ...(keyset.limit !== undefined ? { limit: keyset.limit } : {}) } : {};
    return { collection, filter, ...(projection ? { projection } : {}), maxTimeMS, ...order };
  }

  async #collectionMap(db: Db, signal: AbortSignal): Promise<Map<string, string>> {
    this.#collections ??= await raceAbort(listCollectionKeys(db, signal), signal);
    return this.#collections;
  }

  async #tableSchema(db: Db, key: string, signal: AbortSignal): Promise<TableSchema> {
    const cached = this.#schemas.get(key);
    if (cached) return cached;
    const schema = await raceAbort(inferCollectionSchema(db, key, this.#collections!.get(key)!, signal), signal);
    this.#schemas.set(key, schema);
    return schema;
  }
}
