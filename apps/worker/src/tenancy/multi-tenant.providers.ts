import { Logger, type Provider } from '@nestjs/common';
import { JOB_CONTROL_EXCHANGE } from '@fetcher/contracts';
import {
  MetricsRegistry, PROBES, redisProbe, staticProbe, type Telemetry, TENANT_READINESS, TenantManagerClient,
} from '@fetcher/platform';
import { JobQueueTransport } from '../adapters/amqp/job-queue.transport';
import { createS3Client, S3ResultStore } from '../adapters/s3/result-store.s3';
import { LEDGER_SERVICE, TenantConnectionResolver } from '../adapters/tenant/tenant-connection-resolver';
import { TenantEventPublisher } from '../adapters/tenant/tenant-event-publisher';
import { TenantJobStore } from '../adapters/tenant/tenant-job-store';
import { storageBucket, type WorkerConfig, type WorkerMultiTenancy } from '../config/worker.config';
import { s3Probe } from '../health/worker-probes';
import { CONNECTION_RESOLVER } from '../ports/connection-resolver.port';
import { EVENT_PUBLISHER } from '../ports/event-publisher.port';
import { JOB_STORE } from '../ports/job-store.port';
import { RESULT_STORE } from '../ports/result-store.port';
import { JobCancelRegistry } from '../jobs/cancel/job-cancel-registry';
import { MessageVerifier } from '../jobs/message-verifier';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { PER_TENANT_PASSES, type PerTenantPasses } from '../jobs/background/per-tenant-passes';
import { perActiveTenant } from './per-tenant-pass';
import { TenantConsumers } from './tenant-consumers';
import { wireTenantIntake } from './tenant-intake';
import { TenantJobQueues } from './tenant-job-queues';
import { CONNECTOR_CACHE, type ConnectorCache } from '../jobs/connector-cache';
import { FETCHER_SERVICE, TenantResources } from './tenant-resources';
import { WorkerTenantReadiness } from './tenant-readiness';
import { TENANT_SCOPE, TenantScope } from './tenant-scope';

/** Why the shared database and vhost checks do not apply: each tenant has its own. */
const PER_TENANT = 'per-tenant in multi-tenant mode';

/**
 * Multi-tenant mode: the ports bound to the tenant in scope (its database, its vhost, its object
 * prefix), one consumer per tenant vhost started from the tenant-manager's list, its events and the
 * reconciler, and the readiness checks of that mode. Nothing connects to a shared database or vhost.
 */
export function multiTenantInfrastructure(config: WorkerConfig, tenancy: WorkerMultiTenancy, telemetry: Telemetry | null): Provider[] {
  const log = new Logger('Tenants');
  return [
    { provide: TENANT_SCOPE, useValue: new TenantScope() },
    {
      provide: TenantManagerClient,
      useFactory: (metrics: MetricsRegistry) =>
        new TenantManagerClient({
          url: tenancy.tenantManager.url,
          apiKey: tenancy.tenantManager.apiKey,
          timeoutMs: tenancy.tenantManager.timeoutMs,
          cacheTtlMs: tenancy.tenantManager.cacheTtlSec * 1000,
          breakerThreshold: tenancy.tenantManager.breaker.threshold,
          breakerTimeoutMs: tenancy.tenantManager.breaker.openSec * 1000,
          allowInsecureHttp: tenancy.tenantManager.allowInsecureHttp,
          metrics,
          ...(telemetry ? { tracer: telemetry.tracer } : {}),
        }),
      inject: [MetricsRegistry],
    },
    {
      provide: TenantResources,
      // The lazy start on a cache miss: a pool that fetched the config of a tenant not served yet.
      useFactory: (client: TenantManagerClient, intake: TenantJobQueues, datasources: ConnectorCache) =>
        new TenantResources({
          client,
          datasources,
          maxTenants: tenancy.pools.maxTenants,
          idleTimeoutMs: tenancy.pools.idleTimeoutSec * 1000,
          defaultAmqpTls: config.amqp.tls,
          onConfigLoaded: (tenantId) => intake.lazyStart(tenantId),
        }),
      inject: [TenantManagerClient, TenantJobQueues, CONNECTOR_CACHE],
    },
    {
      provide: TenantJobQueues,
      useFactory: (scope: TenantScope) => new TenantJobQueues(scope),
      inject: [TENANT_SCOPE],
    },
    {
      provide: TenantConsumers,
      useFactory: (
        resources: TenantResources, intake: TenantJobQueues, metrics: MetricsRegistry, scope: TenantScope,
        verifier: MessageVerifier, cancels: JobCancelRegistry, workerMetrics: WorkerMetrics,
      ) =>
        wireTenantIntake({
          resources,
          intake,
          workQueue: config.amqp.workQueue,
          telemetry,
          redis: tenancy.events.redis,
          environment: tenancy.events.environment,
          reconcileIntervalMs: tenancy.reconcileIntervalSec * 1000,
          logger: log,
          metrics,
          control: { exchange: JOB_CONTROL_EXCHANGE, verify: (msg) => verifier.verify(msg), registry: cancels, metrics: workerMetrics, scope },
        }).consumers,
      inject: [TenantResources, TenantJobQueues, MetricsRegistry, TENANT_SCOPE, MessageVerifier, JobCancelRegistry, WorkerMetrics],
    },
    // The microservice strategy main.ts connects, and the drain WorkerSubsystems runs.
    { provide: JobQueueTransport, useExisting: TenantJobQueues },
    {
      provide: S3ResultStore,
      useFactory: () => {
        const bucket = storageBucket(config);
        return new S3ResultStore(createS3Client({ ...config.storage, bucket }), bucket);
      },
    },

    // Ports, bound to the tenant in scope.
    { provide: JOB_STORE, useFactory: (scope: TenantScope, r: TenantResources) => new TenantJobStore(scope, r.mongo), inject: [TENANT_SCOPE, TenantResources] },
    {
      provide: CONNECTION_RESOLVER,
      useFactory: (scope: TenantScope, r: TenantResources) =>
        new TenantConnectionResolver(scope, r.mongo, config.ring, (tenantId) => r.client.getTenantConfig(tenantId, LEDGER_SERVICE)),
      inject: [TENANT_SCOPE, TenantResources],
    },
    { provide: RESULT_STORE, useExisting: S3ResultStore },
    {
      provide: EVENT_PUBLISHER,
      useFactory: (scope: TenantScope, r: TenantResources) => new TenantEventPublisher(scope, r.amqp, config.amqp.eventsExchange, telemetry),
      inject: [TENANT_SCOPE, TenantResources],
    },

    // The repairer and the reaper run once per active tenant, within its scope.
    {
      provide: PER_TENANT_PASSES,
      useFactory: (scope: TenantScope, r: TenantResources): PerTenantPasses => (pass, name) =>
        perActiveTenant(pass, name, (signal) => r.client.getActiveTenants(FETCHER_SERVICE, { signal }), scope, log),
      inject: [TENANT_SCOPE, TenantResources],
    },

    // /readyz/tenant/<id>: one tenant's database and vhost.
    {
      provide: TENANT_READINESS,
      useFactory: (r: TenantResources) => new WorkerTenantReadiness(r.client, r.mongo, r.amqp),
      inject: [TenantResources],
    },
    // Readiness: the shared database and vhost do not exist here.
    {
      provide: PROBES,
      // TenantConsumers is injected so that the intake is wired before its events connection is probed.
      useFactory: (s3: S3ResultStore, _consumers: unknown, intake: TenantJobQueues) => [
        staticProbe('mongodb', { status: 'n/a', reason: PER_TENANT }),
        staticProbe('rabbitmq', { status: 'n/a', reason: PER_TENANT }),
        s3Probe(s3, config.storage.endpoint === undefined || config.storage.endpoint.startsWith('https:')),
        redisProbe({ ping: () => intake.pingEvents() }, { name: 'multi_tenant_redis', timeoutMs: 2_000, tls: tenancy.events.redis.tls }),
        staticProbe('tenant_manager', { status: 'up' }),
      ],
      inject: [S3ResultStore, TenantConsumers, TenantJobQueues],
    },
  ];
}
