import { readFile } from 'node:fs/promises';
import { type Db, MongoClient } from 'mongodb';
import type { TenantConfig } from './tenant-config';
import { TenantPool, type TenantPoolOptions } from './tenant-pool';
import { TenantResourceError } from './tenant-resource-error';

/** Where a tenant's operational database is, from its config. Holds credentials: never log it. */
export interface TenantMongoTarget {
  readonly uri: string;
  /** Always the config's `database`, even when `uri` names another one. */
  readonly database: string;
  readonly maxPoolSize: number;
  /** Separate client certificate and key files, loaded at connect (a combined file goes in the URI). */
  readonly certFile?: string;
  readonly keyFile?: string;
}

const DEFAULT_MAX_POOL_SIZE = 100;

/**
 * The tenant's database for a module (`fetcher`: connections and jobs), from `databases.<module>.mongodb`
 * only. A missing section or database name is a `TenantResourceError`: there is never a fallback to a
 * shared database. A given `uri` is used as it is; otherwise one is built from the fields, every part
 * escaped, with `authSource=admin` when credentials are given without one.
 */
export function tenantMongoTarget(tenantId: string, config: TenantConfig, module = 'fetcher'): TenantMongoTarget {
  const field = `databases.${module}.mongodb`;
  const mongo = config.databases?.[module]?.mongodb;
  if (!mongo) throw new TenantResourceError('mongodb_not_configured', tenantId, field);
  if (!mongo.database) throw new TenantResourceError('mongodb_not_configured', tenantId, `${field}.database`);
  const maxPoolSize = mongo.maxPoolSize && mongo.maxPoolSize > 0 ? mongo.maxPoolSize : DEFAULT_MAX_POOL_SIZE;
  const separateKey = mongo.tlsCertFile && mongo.tlsKeyFile && mongo.tlsCertFile !== mongo.tlsKeyFile;
  const files = separateKey ? { certFile: mongo.tlsCertFile!, keyFile: mongo.tlsKeyFile! } : {};
  if (mongo.uri) {
    if (!/^mongodb(\+srv)?:\/\//i.test(mongo.uri)) throw new TenantResourceError('invalid_config', tenantId, `${field}.uri`);
    return { uri: mongo.uri, database: mongo.database, maxPoolSize, ...files };
  }
  if (!mongo.host) throw new TenantResourceError('mongodb_not_configured', tenantId, `${field}.host`);
  if (!mongo.port) throw new TenantResourceError('mongodb_not_configured', tenantId, `${field}.port`);
  const credentials = mongo.username && mongo.password ? `${encodeURIComponent(mongo.username)}:${encodeURIComponent(mongo.password)}@` : '';
  const params = new URLSearchParams();
  const authSource = mongo.authSource ?? (mongo.username ? 'admin' : undefined);
  if (authSource) params.set('authSource', authSource);
  if (mongo.directConnection) params.set('directConnection', 'true');
  if (mongo.tls) params.set('tls', 'true');
  if (mongo.tlsCAFile) params.set('tlsCAFile', mongo.tlsCAFile);
  if (mongo.tlsCertFile && !separateKey) params.set('tlsCertificateKeyFile', mongo.tlsCertFile);
  if (mongo.tlsSkipVerify) params.set('tlsInsecure', 'true');
  const query = params.size > 0 ? `?${params.toString()}` : '';
  const host = mongo.host.includes(':') && !mongo.host.startsWith('[') ? `[${mongo.host}]` : mongo.host;
  return { uri: `mongodb://${credentials}${host}:${mongo.port}/${encodeURIComponent(mongo.database)}${query}`, database: mongo.database, maxPoolSize, ...files };
}

/** A tenant's connected client and its database. */
export interface TenantMongo {
  readonly client: MongoClient;
  readonly db: Db;
}

export interface OpenTenantMongoOptions {
  /** How long the first connect may look for a server. Default 10 s. */
  readonly serverSelectionTimeoutMs?: number;
}

/**
 * Connects to the tenant's database. A connect that fails closes the client and rejects with
 * `unreachable`, so a pool keeps nothing broken and the next use connects afresh.
 */
export async function openTenantMongo(tenantId: string, target: TenantMongoTarget, options: OpenTenantMongoOptions = {}): Promise<TenantMongo> {
  const keyPair = target.certFile && target.keyFile
    ? { cert: await readFile(target.certFile), key: await readFile(target.keyFile) }
    : {};
  const client = new MongoClient(target.uri, {
    maxPoolSize: target.maxPoolSize,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
    ...keyPair,
  });
  try {
    await client.connect();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new TenantResourceError('unreachable', tenantId, 'mongodb', error);
  }
  return { client, db: client.db(target.database) };
}

export interface TenantMongoPoolOptions
  extends Pick<TenantPoolOptions<TenantMongo>, 'maxTenants' | 'idleTimeoutMs' | 'sweepIntervalMs' | 'now' | 'onDisposeError'>, OpenTenantMongoOptions {
  /** The tenant's config for the service (`TenantManagerClient.getTenantConfig(id, 'fetcher')`). */
  readonly configOf: (tenantId: string) => Promise<TenantConfig>;
  /** Default `fetcher`. */
  readonly module?: string;
  readonly name?: string;
}

/** One connected MongoDB client per tenant, capped and evicted as `TenantPool` describes. */
export function createTenantMongoPool(options: TenantMongoPoolOptions): TenantPool<TenantMongo> {
  return new TenantPool<TenantMongo>({
    name: options.name ?? 'tenant-mongodb',
    maxTenants: options.maxTenants,
    idleTimeoutMs: options.idleTimeoutMs,
    ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
    ...(options.now ? { now: options.now } : {}),
    ...(options.onDisposeError ? { onDisposeError: options.onDisposeError } : {}),
    open: async (tenantId) => openTenantMongo(tenantId, tenantMongoTarget(tenantId, await options.configOf(tenantId), options.module), options),
    dispose: (_tenantId, mongo) => mongo.client.close(),
  });
}
