import { CONNECTION_COLLECTION, JOB_COLLECTION } from '@fetcher/contracts';
import type { TenantContext } from '@fetcher/engine';
import {
  createTenantMongoPool, TenantManagerError, type TenantManagerClient, type TenantMongo, type TenantPool, TenantResourceError,
} from '@fetcher/platform';
import type { Db } from 'mongodb';
import type { mongo } from 'mongoose';
import { FETCHER_SERVICE, admissionError } from '../../auth/tenant-admission';
import { Errors } from '../../errors/catalogue';
import type { ActiveExecutionChecker } from '../../ports/active-execution-checker.port';
import type { ConnectionRepository } from '../../ports/connection-repository.port';
import type { JobRepository } from '../../ports/job-repository.port';
import { MongoActiveExecutions } from '../mongo/active-execution-checker.mongo';
import { MongoConnectionStore } from '../mongo/connection-repository.mongo';
import { MongoJobStore } from '../mongo/job-repository.mongo';

export interface TenantDatabasesOptions {
  readonly maxTenants: number;
  readonly idleTimeoutMs: number;
  /** 0 turns the idle sweep timer off (tests). */
  readonly sweepIntervalMs?: number;
  readonly serverSelectionTimeoutMs?: number;
}

/**
 * Each tenant's own MongoDB database (`databases.fetcher.mongodb` of its `fetcher` config), one
 * pooled client per tenant. An operation leases the tenant's client for its whole duration, so an
 * eviction (the cap, idle time, a tenant event) never closes a client under a running query. There
 * is no shared database behind it: a tenant whose config names none gets 503, never another store.
 */
export class TenantDatabases {
  constructor(readonly pool: TenantPool<TenantMongo>) {}

  static fromClient(client: TenantManagerClient, options: TenantDatabasesOptions): TenantDatabases {
    return new TenantDatabases(createTenantMongoPool({
      configOf: (tenantId) => client.getTenantConfig(tenantId, FETCHER_SERVICE),
      maxTenants: options.maxTenants,
      idleTimeoutMs: options.idleTimeoutMs,
      ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
      ...(options.serverSelectionTimeoutMs === undefined ? {} : { serverSelectionTimeoutMs: options.serverSelectionTimeoutMs }),
    }));
  }

  /** Runs `work` on the tenant's database, leased for its duration. */
  async use<T>(tenant: TenantContext, work: (db: Db) => Promise<T>): Promise<T> {
    let lease;
    try {
      lease = await this.pool.acquire(tenant.tenantId);
    } catch (error) {
      throw resolutionError(tenant.tenantId, error);
    }
    try {
      return await work(lease.resource.db);
    } finally {
      lease.release();
    }
  }

  /** Drops the tenant's client (removed, suspended, rotated credentials); resolves once it is closed. */
  evict(tenantId: string): Promise<void> {
    return this.pool.evict(tenantId);
  }

  close(): Promise<void> {
    return this.pool.closeAll();
  }
}

/**
 * Why a tenant's database could not be had, as the HTTP layer answers it: the tenant-manager's
 * answers as the tenant guard gives them (unknown 404, suspended 403 `0131`, unavailable 503), a
 * config without a usable database or a database that does not answer 503.
 */
export function resolutionError(tenantId: string, error: unknown): Error {
  if (error instanceof TenantManagerError) return admissionError(tenantId, error);
  if (error instanceof TenantResourceError) return Errors.tenantServiceUnavailable();
  return Errors.tenantLookupFailed();
}

/**
 * A port whose every method takes the tenant first, served per call by a store built on that
 * tenant's database. The stores are plain objects over a collection, so building one per call costs
 * nothing, and holding none means nothing can outlive its tenant's client. A plain object with the
 * store class's own methods (not a Proxy), so a framework looking for lifecycle hooks or `then` finds none.
 */
function perTenant<P extends object>(databases: TenantDatabases, storeClass: abstract new (...args: never[]) => P, storeOn: (db: Db) => P): P {
  const methods = Object.getOwnPropertyNames(storeClass.prototype).filter((name) => name !== 'constructor');
  const port: Record<string, unknown> = {};
  for (const method of methods) {
    port[method] = (tenant: TenantContext, ...args: unknown[]) =>
      databases.use(tenant, (db) => {
        const store = storeOn(db) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
        return store[method].call(store, tenant, ...args);
      });
  }
  return port as P;
}

/** Connections in each tenant's own database. */
export function tenantConnectionRepository(databases: TenantDatabases): ConnectionRepository {
  return perTenant(databases, MongoConnectionStore, (db) => new MongoConnectionStore(() => db.collection(CONNECTION_COLLECTION) as unknown as mongo.Collection<{ _id: mongo.Binary }>));
}

/** Jobs in each tenant's own database. */
export function tenantJobRepository(databases: TenantDatabases): JobRepository {
  return perTenant(databases, MongoJobStore, (db) => new MongoJobStore(() => db.collection(JOB_COLLECTION) as never));
}

/** The PATCH/DELETE busy gate, on each tenant's own `job` collection. */
export function tenantActiveExecutionChecker(databases: TenantDatabases): ActiveExecutionChecker {
  return perTenant(databases, MongoActiveExecutions, (db) => new MongoActiveExecutions(() => db.collection(JOB_COLLECTION)));
}
