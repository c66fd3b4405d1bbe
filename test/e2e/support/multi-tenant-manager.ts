import { createManagerApp, loadManagerConfig } from '@fetcher/manager';
import { aSigningKey, aTenantToken, managerTestEnv, provisionTenantIndexes, type TestSigningKey } from '@fetcher/manager/testing';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { createTenantVhosts, type TenantVhosts } from '@fetcher/platform/testing';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantRecord, type TenantStatus } from '@fetcher/tenant-manager-test-server';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Db, MongoClient } from 'mongodb';

/** The work queue every tenant vhost has, as the tenant-manager provisions it. */
export const MT_E2E_WORK_QUEUE = 'fetcher.extract-external-data.queue';

export interface TenantAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** The Manager in multi-tenant mode, listening on a loopback port, with the key its tenant tokens are signed with. */
export interface MultiTenantManager {
  readonly app: NestFastifyApplication;
  readonly base: string;
  readonly key: TestSigningKey;
  /** The Manager's current internal HMAC key, to verify the job messages it publishes. */
  readonly internalHmac: Buffer;
  /** An HTTP call with a fresh token for `tenantId`; a JSON body is sent as such. */
  call(tenantId: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TenantAnswer>;
  close(): Promise<void>;
}

export interface MultiTenantManagerOptions {
  readonly mongoUri: string;
  readonly tenantManagerUrl: string;
  readonly apiKey: string;
  /** Unique per suite: the Manager's Redis keys and the token key id. */
  readonly id: string;
  /** Shared with a Worker that must decrypt what this Manager encrypts (base64). */
  readonly masterKey?: string;
  /** Default `MT_E2E_WORK_QUEUE`. */
  readonly workQueue?: string;
}

/**
 * The Manager in multi-tenant mode, in this process, on the given MongoDB and tenant-manager: tokens
 * checked against a fresh RS256 key (`MULTI_TENANT_JWT_PUBLIC_KEY`), tenant events on the local Redis
 * (channel `tenant-events:staging:`), job messages to the work queue in each tenant's vhost.
 */
export async function startMultiTenantManager(options: MultiTenantManagerOptions): Promise<MultiTenantManager> {
  const key = await aSigningKey(`mt-${options.id}`);
  const config = loadManagerConfig(managerTestEnv(options.mongoUri, {
    ENV_NAME: 'staging',
    ...(options.masterKey ? { APP_ENC_KEY: options.masterKey } : {}),
    RABBITMQ_FETCHER_WORK_QUEUE: options.workQueue ?? MT_E2E_WORK_QUEUE,
    REDIS_HOST: '127.0.0.1',
    MULTI_TENANT_ENABLED: 'true',
    MULTI_TENANT_URL: options.tenantManagerUrl,
    MULTI_TENANT_SERVICE_API_KEY: options.apiKey,
    MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true',
    MULTI_TENANT_REDIS_HOST: '127.0.0.1',
    MULTI_TENANT_JWT_PUBLIC_KEY: Buffer.from(key.publicPem).toString('base64'),
  }));
  const app = await createManagerApp(config, { logger: false, redisKeyPrefix: `e2e:${options.id}:` });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close();
    throw error;
  }
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  return {
    app,
    base,
    key,
    internalHmac: config.keyRing.current().internalHmac,
    async call(tenantId, method, path, body, headers = {}) {
      const token = await aTenantToken(key, tenantId);
      const response = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
    },
    close: () => app.close(),
  };
}

/** What a Manager-only multi-tenant suite runs against. */
export interface TenantServices {
  readonly mongo: MongoTestServer;
  readonly apiKey: string;
  readonly vhosts: TenantVhosts;
  readonly tenantManager: TenantManagerTestServer;
  /** The tenant's own database (indexes provisioned), as the test sees it. */
  db(tenantId: string): Db;
  /** The tenant's entry in the tenant-manager: its database, its vhost, and a `ledger` PostgreSQL datasource. */
  record(tenantId: string, status?: TenantStatus): TenantRecord;
  close(): Promise<void>;
}

/**
 * The MongoDB test server, a vhost per tenant (with the work queue and dead-letter queue), a
 * database per tenant with its indexes, and the tenant-manager test server serving `tenants` with
 * the given statuses. `close` removes all of it.
 */
export async function startTenantServices(id: string, tenants: Readonly<Record<string, TenantStatus>>): Promise<TenantServices> {
  const ids = Object.keys(tenants);
  const apiKey = `mt-e2e-key-${id}`;
  const cleanups: (() => unknown)[] = [];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  };
  try {
    const mongo = await startMongoTestServer();
    cleanups.push(() => mongo.close());
    const admin = await new MongoClient(mongo.uri).connect();
    cleanups.push(() => admin.close());
    const vhosts = createTenantVhosts(ids, { workQueue: MT_E2E_WORK_QUEUE });
    cleanups.push(() => vhosts.cleanup());
    const db = (tenantId: string): Db => admin.db(`mt_${tenantId}_${id}`);
    for (const tenantId of ids) {
      await provisionTenantIndexes(db(tenantId));
      cleanups.push(() => db(tenantId).dropDatabase());
    }
    const record = (tenantId: string, status: TenantStatus = 'active'): TenantRecord => {
      const vhost = vhosts.byTenant(tenantId);
      return {
        name: tenantId,
        status,
        services: {
          fetcher: {
            id: tenantId,
            tenantSlug: tenantId,
            databases: { fetcher: { mongodb: { uri: mongo.uri, database: db(tenantId).databaseName } } },
            messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: vhost.vhost, username: vhost.username, password: vhost.password } },
          },
          ledger: {
            id: tenantId,
            tenantSlug: tenantId,
            databases: { onboarding: { postgresql: { host: '127.0.0.1', port: 5432, database: 'test', username: 'postgres', password: 'trust' } } },
          },
        },
      };
    };
    const tenantManager = await startTenantManagerTestServer({
      tenants: { apiKey, tenants: Object.fromEntries(ids.map((tenantId) => [tenantId, record(tenantId, tenants[tenantId])])) },
    });
    cleanups.push(() => tenantManager.close());
    return { mongo, apiKey, vhosts, tenantManager, db, record, close };
  } catch (error) {
    await close();
    throw error;
  }
}
