import { type OnApplicationShutdown, type OnModuleInit, type Provider } from '@nestjs/common';
import {
  createTenantAmqpPool, PROBES, type ProbeResult, type ReadinessProbe, redisProbe, staticProbe, TENANT_READINESS, type TenantAmqp,
  TenantEventListener, type TenantEventHandler, TenantManagerError, type TenantManagerClient, type TenantPool, type TenantProbeResolution,
  type TenantReadiness, TELEMETRY, type Telemetry,
} from '@fetcher/platform';
import type { Redis } from 'ioredis';
import { MANAGER_CONFIG, type ManagerConfig, type ManagerMultiTenancy } from '../../config/manager.config';
import { FETCHER_SERVICE } from '../../auth/tenant-admission';
import { ACTIVE_EXECUTION_CHECKER } from '../../ports/active-execution-checker.port';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_REPOSITORY } from '../../ports/connection-repository.port';
import { INTERNAL_DATASOURCES } from '../../ports/internal-datasources.port';
import { JOB_CONTROL_PUBLISHER } from '../../ports/job-control-publisher.port';
import { JOB_PUBLISHER } from '../../ports/job-publisher.port';
import { JOB_REPOSITORY } from '../../ports/job-repository.port';
import { TenantAmqpJobPublisher } from '../amqp/tenant-job-publisher.amqp';
import { REDIS_CLIENT } from '../redis/redis.module';
import { TenantInternalDatasources } from './internal-datasources.tenant';
import { TenantDatabases, tenantActiveExecutionChecker, tenantConnectionRepository, tenantJobRepository } from './tenant-databases';
import { TENANT_MANAGER_CLIENT, tenantManagerClientProvider } from './tenant-manager.provider';

/** Each tenant's vhost connection (the job publisher's, and the tenant readiness check's). */
export const TENANT_AMQP_POOL = Symbol('TenantAmqpPool');

const TENANT_CHECK_MS = 1_000;
const MT_REASON = 'multi-tenant: see /readyz/tenant/:id';

/**
 * Multi-tenant mode's bindings: the tenant-manager client; per-tenant databases and vhosts behind
 * the same ports as single-tenant mode; internal datasources from the `ledger` association; the
 * tenant events that evict a removed tenant's pools; and the readiness of section "Readiness"
 * (`mongodb`/`rabbitmq` n/a, `tenant_manager`, `multi_tenant_redis`, `/readyz/tenant/:id`).
 */
export function multiTenantProviders(tenancy: ManagerMultiTenancy): Provider[] {
  const pools = { maxTenants: tenancy.pools.maxTenants, idleTimeoutMs: tenancy.pools.idleTimeoutSec * 1000 };
  return [
    tenantManagerClientProvider(tenancy),
    {
      provide: TenantDatabases,
      inject: [TENANT_MANAGER_CLIENT],
      useFactory: (client: TenantManagerClient) => TenantDatabases.fromClient(client, pools),
    },
    {
      provide: TENANT_AMQP_POOL,
      inject: [TENANT_MANAGER_CLIENT, MANAGER_CONFIG],
      useFactory: (client: TenantManagerClient, config: ManagerConfig) => createTenantAmqpPool({
        configOf: (tenantId) => client.getTenantConfig(tenantId, FETCHER_SERVICE),
        ...pools,
        defaultTls: config.amqp.tls,
      }),
    },
    {
      provide: TenantAmqpJobPublisher,
      inject: [TENANT_AMQP_POOL, MANAGER_CONFIG, CLOCK, TELEMETRY],
      useFactory: (pool: TenantPool<TenantAmqp>, config: ManagerConfig, clock: Clock, telemetry: Telemetry | null) =>
        new TenantAmqpJobPublisher(pool, { workQueue: config.amqp.workQueue, signingKey: config.keyRing.current().internalHmac, telemetry }, clock),
    },
    { provide: JOB_PUBLISHER, useExisting: TenantAmqpJobPublisher },
    { provide: JOB_CONTROL_PUBLISHER, useExisting: TenantAmqpJobPublisher },
    { provide: CONNECTION_REPOSITORY, inject: [TenantDatabases], useFactory: tenantConnectionRepository },
    { provide: JOB_REPOSITORY, inject: [TenantDatabases], useFactory: tenantJobRepository },
    { provide: ACTIVE_EXECUTION_CHECKER, inject: [TenantDatabases], useFactory: tenantActiveExecutionChecker },
    { provide: INTERNAL_DATASOURCES, inject: [TENANT_MANAGER_CLIENT], useFactory: (client: TenantManagerClient) => new TenantInternalDatasources(client) },
    {
      provide: ManagerTenantEvents,
      inject: [TENANT_MANAGER_CLIENT, TenantDatabases, TENANT_AMQP_POOL],
      useFactory: (client: TenantManagerClient, databases: TenantDatabases, amqp: TenantPool<TenantAmqp>) => new ManagerTenantEvents(tenancy, client, databases, amqp),
    },
    {
      provide: PROBES,
      inject: [TENANT_MANAGER_CLIENT, REDIS_CLIENT, ManagerTenantEvents, MANAGER_CONFIG],
      useFactory: (client: TenantManagerClient, redis: Redis | null, events: ManagerTenantEvents, config: ManagerConfig): ReadinessProbe[] => [
        staticProbe('mongodb', { status: 'n/a', reason: MT_REASON }),
        staticProbe('rabbitmq', { status: 'n/a', reason: MT_REASON }),
        redisProbe(redis ?? undefined, { skippedReason: 'REDIS_HOST is not set', ...(config.redis ? { tls: config.redis.tls } : {}) }),
        redisProbe(events, { name: 'multi_tenant_redis', timeoutMs: 2_000, tls: tenancy.events.redis.tls }),
        tenantManagerProbe(client),
      ],
    },
    {
      provide: TENANT_READINESS,
      inject: [TENANT_MANAGER_CLIENT, TenantDatabases, TENANT_AMQP_POOL],
      useFactory: (client: TenantManagerClient, databases: TenantDatabases, amqp: TenantPool<TenantAmqp>) => new ManagerTenantReadiness(client, databases, amqp),
    },
  ];
}

/** Configured means up: the check makes no network call (the tenant-manager is asked per tenant); an open breaker is reported. */
function tenantManagerProbe(client: TenantManagerClient): ReadinessProbe {
  return {
    name: 'tenant_manager',
    timeoutMs: 1_000,
    check: (): Promise<ProbeResult> => {
      const state = client.breakerState;
      if (state === 'open') return Promise.resolve({ status: 'down', error: 'circuit breaker open', breaker_state: state });
      if (state === 'half-open') return Promise.resolve({ status: 'degraded', error: 'circuit breaker half-open', breaker_state: state });
      return Promise.resolve({ status: 'up', breaker_state: state });
    },
  };
}

/**
 * `/readyz/tenant/:id`: the tenant as the tenant-manager sees it (an open breaker or no answer 503,
 * a tenant that is not active 404), then its database (resolve and ping) and its vhost (open and
 * close a channel), each a probe turned into a Terminus indicator like the process's own.
 */
export class ManagerTenantReadiness implements TenantReadiness {
  constructor(private readonly client: TenantManagerClient, private readonly databases: TenantDatabases, private readonly amqp: TenantPool<TenantAmqp>) {}

  async resolve(tenantId: string, signal: AbortSignal): Promise<TenantProbeResolution> {
    if (this.client.breakerState === 'open') return { status: 503, body: { error: 'tenant manager circuit breaker open' } };
    try {
      await this.client.getTenantConfig(tenantId, FETCHER_SERVICE, { signal: AbortSignal.any([signal, AbortSignal.timeout(TENANT_CHECK_MS)]) });
    } catch (error) {
      if (error instanceof TenantManagerError) {
        if (error.category === 'not_found' || error.category === 'forbidden') return { status: 404, body: { error: 'tenant not found', tenant_id: tenantId } };
        if (error.reason === 'circuit_open') return { status: 503, body: { error: 'tenant manager circuit breaker open' } };
        return { status: 503, body: { error: `tenant manager unreachable: ${error.reason}` } };
      }
      throw error;
    }
    const mongodb: ReadinessProbe = {
      name: 'mongodb',
      timeoutMs: 2_000,
      check: () => this.databases.pool.use(tenantId, async (mongo) => {
        await mongo.db.command({ ping: 1 });
        return { status: 'up' };
      }),
    };
    const rabbitmq: ReadinessProbe = {
      name: 'rabbitmq',
      timeoutMs: 2_000,
      check: () => this.amqp.use(tenantId, async (amqp) => {
        const model = amqp.connection.connection;
        if (!model) return { status: 'down', error: 'not connected' };
        const channel = await model.createChannel();
        await channel.close();
        return { status: 'up', tls: amqp.tls };
      }),
    };
    return { probes: [mongodb, rabbitmq] };
  }
}

/**
 * The Manager's reactions to tenant events: a removed, suspended or purged tenant's database and vhost
 * connections are closed and its cached config dropped; rotated credentials or a cache invalidation
 * do the same, and the next request loads the tenant afresh. The Manager loads tenants lazily, so an
 * added tenant needs nothing but a cleared cache.
 */
export class ManagerTenantEvents implements TenantEventHandler, OnModuleInit, OnApplicationShutdown {
  readonly listener: TenantEventListener;

  constructor(
    tenancy: ManagerMultiTenancy,
    private readonly client: TenantManagerClient,
    private readonly databases: TenantDatabases,
    private readonly amqp: TenantPool<TenantAmqp>,
  ) {
    this.listener = new TenantEventListener({
      redis: tenancy.events.redis,
      environment: tenancy.events.environment,
      handler: this,
      connectionName: 'fetcher-manager-tenant-events',
    });
  }

  /**
   * Subscribes before the application bootstraps (the readiness self-probe PINGs this connection then).
   * With Redis unreachable the Manager starts all the same: the listener keeps trying in the background
   * and subscribes once Redis answers; meanwhile readiness reports `multi_tenant_redis` down, and
   * requests are served (cached configs expire with their TTL, so a missed event is seen that late).
   */
  async onModuleInit(): Promise<void> {
    await this.listener.start();
  }

  /** The `multi_tenant_redis` check: a PING over the subscribed connection, failing at once while not subscribed; never a connect of its own. */
  ping(): Promise<unknown> {
    return this.listener.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener.close();
    await Promise.all([this.databases.close(), this.amqp.closeAll()]);
    this.client.close();
  }

  ownsTenant(tenantId: string): boolean {
    return this.databases.pool.has(tenantId) || this.amqp.has(tenantId);
  }

  async removeTenant(tenantId: string): Promise<void> {
    this.client.invalidate(tenantId, FETCHER_SERVICE);
    this.client.invalidate(tenantId, 'ledger');
    await Promise.all([this.databases.evict(tenantId), this.amqp.evict(tenantId)]);
  }

  addTenant(tenantId: string): Promise<void> {
    this.client.invalidate(tenantId, FETCHER_SERVICE);
    return Promise.resolve();
  }

  reloadTenant(tenantId: string): Promise<void> {
    return this.removeTenant(tenantId);
  }

  refreshTenant(): Promise<void> {
    return Promise.resolve();
  }
}
