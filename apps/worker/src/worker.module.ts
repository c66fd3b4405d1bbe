import { type DynamicModule, Module, type ModuleMetadata, type Provider } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { JOB_CONTROL_EXCHANGE, MULTI_TENANT_NOT_SERVED } from '@fetcher/contracts';
import { connectorAttributes, createConnectorRegistry, resolveDialTarget } from '@fetcher/connectors';
import {
  assertFetcherTopology,
  checkWorkQueue,
  CircuitBreaker,
  loggerModuleOptions,
  MetricsRegistry,
  mongoProbe,
  PlatformModule,
  PROBES,
  type ReadinessProbe,
  type Telemetry,
} from '@fetcher/platform';
import { LoggerModule } from 'nestjs-pino';
import { AmqpConnections } from './adapters/amqp/amqp-connections';
import { AmqpEventPublisher } from './adapters/amqp/event-publisher.amqp';
import { JobControlConsumer } from './adapters/amqp/job-control.consumer';
import { JobQueueTransport } from './adapters/amqp/job-queue.transport';
import { MongoConnectionResolver } from './adapters/mongo/connection-resolver.mongo';
import { MongoConnection } from './adapters/mongo/mongo-connection';
import { MongoJobStore } from './adapters/mongo/job-store.mongo';
import { createS3Client, S3ResultStore } from './adapters/s3/result-store.s3';
import { storageBucket, WORKER_CONFIG, type WorkerConfig, workerMongoSettings } from './config/worker.config';
import { rabbitProbe, s3Probe } from './health/worker-probes';
import { BackgroundLoops } from './jobs/background/background-loops';
import { PER_TENANT_PASSES, type PerTenantPasses } from './jobs/background/per-tenant-passes';
import { multiTenantInfrastructure } from './tenancy/multi-tenant.providers';
import { WorkerSubsystems } from './jobs/background/worker-subsystems';
import { LeaseReaper } from './jobs/background/lease-reaper';
import { TerminalEventRepairer } from './jobs/background/terminal-event-repairer';
import { FailPendingJobHandler } from './jobs/commands/fail-pending-job.handler';
import { CONNECTOR_REGISTRY, RunJobHandler } from './jobs/commands/run-job.handler';
import { JobCancelRegistry } from './jobs/cancel/job-cancel-registry';
import { CONNECTOR_CACHE, ConnectorCache } from './jobs/connector-cache';
import { JobOutbox } from './jobs/job-outbox';
import { JobRequestedController } from './jobs/job-requested.controller';
import { JOB_SETTINGS, type JobSettings } from './jobs/job-settings';
import { RETRY_POLICY, type RetryPolicy } from './jobs/redelivery';
import { MESSAGE_VERIFIER_OPTIONS, MessageVerifier } from './jobs/message-verifier';
import { DEFAULT_MAX_PARTS_IN_FLIGHT, DEFAULT_PART_BYTES } from './jobs/result/result-uploader';
import { realSleep } from './jobs/result/retry';
import { processSpoolDir } from './jobs/result/spool-dir';
import { WorkerMetrics } from './metrics/worker-metrics';
import { CLOCK, systemClock } from './ports/clock.port';
import { CONNECTION_RESOLVER } from './ports/connection-resolver.port';
import { EVENT_PUBLISHER } from './ports/event-publisher.port';
import { JOB_STORE } from './ports/job-store.port';
import { RESULT_STORE } from './ports/result-store.port';
import { ConfigError, TELEMETRY, TelemetryShutdown } from '@fetcher/platform';

/** Progress is written at most this often while a job runs. */
const PROGRESS_INTERVAL_MS = 2_000;
/** The longest wait between two retries of a delivery; the first wait doubles up to it. */
const MAX_RETRY_DELAY_MS = 30_000;

/**
 * Another host's adapters (the standalone service's embedded backends) in place of MongoDB, RabbitMQ
 * and S3: with them, none of the production infrastructure is built, so `providers` must bind every
 * port (JOB_STORE, CONNECTION_RESOLVER, RESULT_STORE, EVENT_PUBLISHER), the consumer
 * (JobQueueTransport) and the readiness checks (PROBES); they may also replace other providers of the
 * module by token (MetricsRegistry). `imports` are added.
 */
export interface WorkerInfrastructure {
  readonly imports: NonNullable<ModuleMetadata['imports']>;
  readonly providers: readonly Provider[];
}

/**
 * The composition root: the one place where ports meet adapters. `telemetry` comes from
 * `bootTelemetry` in main.ts; absent or null, no span is created anywhere.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: WorkerConfig, infrastructure?: WorkerInfrastructure, telemetry: Telemetry | null = null): DynamicModule {
    // The embedded backends of another host serve one tenant only.
    if (config.tenancy.multiTenant && infrastructure) throw new ConfigError([MULTI_TENANT_NOT_SERVED]);
    const settings: JobSettings = {
      leaseTtlMs: config.jobs.leaseTtlMs,
      leaseOwner: config.jobs.leaseOwner,
      spoolDir: processSpoolDir(config.storage.spoolDir), // prepareSpoolDir created it at startup
      objectKeyPrefix: config.storage.keyPrefix,
      workQueue: config.amqp.workQueue,
      eventsExchange: config.amqp.eventsExchange,
      eventSource: config.events.source,
      ...(config.jobs.maxResultBytes ? { maxResultBytes: config.jobs.maxResultBytes } : {}),
      upload: {
        partBytes: DEFAULT_PART_BYTES,
        multipartThresholdBytes: config.storage.multipartThresholdBytes,
        inMemoryBytes: config.storage.inMemoryResultBytes,
        maxInFlight: DEFAULT_MAX_PARTS_IN_FLIGHT,
        sleep: realSleep,
      },
      ring: config.ring,
      progressIntervalMs: PROGRESS_INTERVAL_MS,
    };
    return {
      module: WorkerModule,
      imports: [
        CqrsModule.forRoot(),
        LoggerModule.forRoot(loggerModuleOptions({ level: config.logLevel, service: 'worker' })),
        PlatformModule.forRoot({
          service: 'worker',
          version: config.version,
          readyzVersion: config.serviceVersion,
          deploymentMode: config.deploymentMode,
          drainDelaySec: config.health.drainDelaySec,
          ...(telemetry ? { telemetry } : {}),
        }),
        ...(infrastructure?.imports ?? []),
      ],
      controllers: [JobRequestedController],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: JOB_SETTINGS, useValue: settings },
        {
          provide: RETRY_POLICY,
          useValue: { maxRetries: config.jobs.retryMax, baseDelayMs: config.jobs.retryBaseDelayMs, maxDelayMs: MAX_RETRY_DELAY_MS, sleep: realSleep } satisfies RetryPolicy,
        },
        { provide: MESSAGE_VERIFIER_OPTIONS, useValue: { allowLegacyBodySignature: config.amqp.allowLegacyBodySignature } },
        { provide: CLOCK, useValue: systemClock },
        { provide: TELEMETRY, useValue: telemetry },
        { provide: TelemetryShutdown, useFactory: () => new TelemetryShutdown(telemetry) },
        { provide: WorkerMetrics, useFactory: (registry: MetricsRegistry) => new WorkerMetrics(registry), inject: [MetricsRegistry] },

        {
          provide: CONNECTOR_REGISTRY,
          useFactory: () => createConnectorRegistry({ hostSafety: { allowPrivate: config.hostSafety.allowPrivate, allowlist: [...config.hostSafety.allowlist] } }),
        },
        {
          provide: CONNECTOR_CACHE,
          // A kept connector's host passes the same host-safety policy again before each job it serves.
          useFactory: () => {
            const hostSafety = { allowPrivate: config.hostSafety.allowPrivate, allowlist: [...config.hostSafety.allowlist] };
            return new ConnectorCache(config.connectionReuse, async (descriptor, signal) => {
              await resolveDialTarget(descriptor.host, hostSafety, { signal, exempt: connectorAttributes(descriptor).internal === true });
            });
          },
        },
        // Production infrastructure, or the host's in its place.
        ...(infrastructure
          ? infrastructure.providers
          : config.tenancy.multiTenant
            ? multiTenantInfrastructure(config, config.tenancy, telemetry)
            : productionInfrastructure(config, telemetry)),

        // Jobs.
        MessageVerifier,
        JobCancelRegistry,
        JobOutbox,
        RunJobHandler,
        FailPendingJobHandler,
        TerminalEventRepairer,
        LeaseReaper,
        {
          provide: BackgroundLoops,
          // Multi-tenant: each pass runs once per active tenant, within its scope.
          useFactory: (repairer: TerminalEventRepairer, reaper: LeaseReaper, perTenant: PerTenantPasses | undefined) =>
            perTenant
              ? new BackgroundLoops(perTenant(repairer, 'event repairer'), perTenant(reaper, 'lease reaper'), config.jobs.reaperIntervalMs)
              : new BackgroundLoops(repairer, reaper, config.jobs.reaperIntervalMs),
          inject: [TerminalEventRepairer, LeaseReaper, { token: PER_TENANT_PASSES, optional: true }],
        },
        WorkerSubsystems,
      ],
    };
  }
}

/**
 * MongoDB, RabbitMQ and S3: the connections, each owned (and closed) by one provider, and the ports,
 * the consumer and the readiness checks built on them. Left out entirely when a host gives its own.
 */
function productionInfrastructure(config: WorkerConfig, telemetry: Telemetry | null): Provider[] {
  return [
    // Infrastructure, each owned (and closed) by one provider.
    { provide: MongoConnection, useFactory: () => new MongoConnection(workerMongoSettings(config)) },
    {
      provide: AmqpConnections,
      // Opens after 5 consecutive connection failures, half-open after 30 s (readiness reports it).
      useFactory: () => new AmqpConnections(config.amqp.url, new CircuitBreaker('fetcher.rabbitmq.adapter', { threshold: 5, coolDownMs: 30_000 })),
    },
    {
      provide: S3ResultStore,
      useFactory: () => {
        const bucket = storageBucket(config);
        return new S3ResultStore(createS3Client({ ...config.storage, bucket }), bucket);
      },
    },

    // Ports.
    { provide: JOB_STORE, useFactory: (mongo: MongoConnection) => new MongoJobStore(mongo.db), inject: [MongoConnection] },
    {
      provide: CONNECTION_RESOLVER,
      useFactory: (mongo: MongoConnection) => new MongoConnectionResolver(mongo.db, config.ring, config.internalDatasources),
      inject: [MongoConnection],
    },
    { provide: RESULT_STORE, useExisting: S3ResultStore },
    {
      provide: EVENT_PUBLISHER,
      useFactory: (amqp: AmqpConnections) => new AmqpEventPublisher(() => amqp.publisher, config.amqp.eventsExchange, telemetry),
      inject: [AmqpConnections],
    },

    // The consumer: it takes work only while what a job needs (the readiness checks) is up.
    {
      provide: JobQueueTransport,
      useFactory: (amqp: AmqpConnections, probes: readonly ReadinessProbe[]) =>
        new JobQueueTransport(() => amqp.consumer, {
          queue: config.amqp.workQueue,
          concurrency: config.amqp.concurrency,
          telemetry,
          dependencies: probes,
          setupTopology: (ch) =>
            config.amqp.declareTopology
              ? assertFetcherTopology(ch, { workQueue: config.amqp.workQueue, eventsExchange: config.amqp.eventsExchange })
              : checkWorkQueue(ch, config.amqp.workQueue),
        }),
      inject: [AmqpConnections, PROBES],
    },

    // Cancel requests, from the control fanout exchange (the lease renewal reads them too).
    {
      provide: JobControlConsumer,
      useFactory: (amqp: AmqpConnections, verifier: MessageVerifier, registry: JobCancelRegistry, metrics: WorkerMetrics) =>
        new JobControlConsumer(() => amqp.consumer, { exchange: JOB_CONTROL_EXCHANGE, verify: (msg) => verifier.verify(msg) }, registry, metrics),
      inject: [AmqpConnections, MessageVerifier, JobCancelRegistry, WorkerMetrics],
    },

    // Readiness.
    {
      provide: PROBES,
      useFactory: (mongo: MongoConnection, amqp: AmqpConnections, s3: S3ResultStore) => [
        mongoProbe(mongo.client),
        rabbitProbe(amqp, amqp.breaker, config.amqp.url.startsWith('amqps:')),
        s3Probe(s3, config.storage.endpoint === undefined || config.storage.endpoint.startsWith('https:')),
      ],
      inject: [MongoConnection, AmqpConnections, S3ResultStore],
    },
  ];
}
