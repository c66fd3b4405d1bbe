import { type DynamicModule, Module, type ModuleMetadata, type Provider } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { loggerModuleOptions, PlatformModule, type Telemetry } from '@fetcher/platform';
import type { Engine } from '@fetcher/engine';
import { LoggerModule } from 'nestjs-pino';
import { EnvInternalDatasources } from './adapters/config/internal-datasources.env';
import { engineProvider } from './adapters/engine/engine.provider';
import { MongoActiveExecutionChecker } from './adapters/mongo/active-execution-checker.mongo';
import { MongoConnectionRepository } from './adapters/mongo/connection-repository.mongo';
import { MongoModule } from './adapters/mongo/mongo.module';
import { JOB_PUBLISHER_PROVIDERS } from './adapters/amqp/job-publisher.provider';
import { EngineConnectivityCheck } from './adapters/engine/connectivity-check.engine';
import { DIAL_SLOTS, DIALS_PER_CONNECTION, LimitedConnectivityCheck } from './adapters/engine/connectivity-check.limited';
import { MongoJobRepository } from './adapters/mongo/job-repository.mongo';
import { JOB_MODEL, JobSchema } from './adapters/mongo/job.schema';
import { resultReaderProvider } from './adapters/s3/result-reader.s3';
import { dispatchSweepProvider } from './jobs/dispatch/dispatch-sweep.provider';
import { JOB_CONTROLLERS, JOB_HANDLERS, JOB_RESULT_HANDLERS } from './jobs/job.handlers';
import { CONNECTIVITY_CHECK } from './ports/connectivity-check.port';
import { SCHEMA_CHECK } from './ports/schema-check.port';
import { EngineSchemaCheck } from './adapters/engine/schema-check.engine';
import { LimitedSchemaCheck } from './adapters/engine/schema-check.limited';
import { KeyedSemaphore } from './adapters/engine/keyed-semaphore';
import { ENGINE } from './ports/engine.port';
import { JOB_REPOSITORY } from './ports/job-repository.port';
import { JOB_PUBLISHER } from './ports/job-publisher.port';
import { probesProvider } from './adapters/readiness/probes.provider';
import { RedisRateLimiter } from './adapters/redis/rate-limiter.redis';
import { RedisModule } from './adapters/redis/redis.module';
import { RedisSchemaCache } from './adapters/redis/schema-cache.redis';
import { MANAGER_CONFIG, type ManagerConfig, mongoSettings } from './config/manager.config';
import { PLUGIN_AUTH_OPTIONS } from './auth/plugin-auth.options';
import { PluginAuthorizer } from './auth/plugin-authorizer';
import { tenantGuardProviders } from './auth/tenant-guard.providers';
import { ConnectionDirectory } from './connections/connection-directory';
import { CONNECTION_CONTROLLERS, CONNECTION_HANDLERS } from './connections/connection.handlers';
import { ErrorFilter } from './http/error.filter';
import { ACTIVE_EXECUTION_CHECKER } from './ports/active-execution-checker.port';
import { CLOCK, SYSTEM_CLOCK } from './ports/clock.port';
import { CONNECTION_REPOSITORY } from './ports/connection-repository.port';
import { CONNECTION_RESOLVER } from './ports/connection-resolver.port';
import { INTERNAL_DATASOURCES } from './ports/internal-datasources.port';
import { RATE_LIMITER } from './ports/rate-limiter.port';
import { RESULT_READER } from './ports/result-reader.port';
import { ConfigError, TELEMETRY, TelemetryShutdown } from '@fetcher/platform';
import { multiTenantProviders } from './adapters/tenancy/multi-tenant.providers';

/** Why a host with embedded stores cannot run multi-tenant mode. */
export const MULTI_TENANT_EMBEDDED =
  'MULTI_TENANT_ENABLED: multi-tenant mode needs a database and a vhost per tenant, which embedded stores do not have; run the Manager service for multi-tenant mode';
import { SCHEMA_CACHE_INVALIDATOR } from './ports/schema-cache-invalidator.port';

export interface ManagerModuleOptions {
  /** Tests give each run its own Redis key space (or share one on purpose). */
  readonly redisKeyPrefix?: string;
  /** Another host's adapters (the standalone service's embedded backends) in place of MongoDB and RabbitMQ. */
  readonly infrastructure?: ManagerInfrastructure;
  /** From `bootTelemetry` in main.ts; absent or null: no spans anywhere. */
  readonly telemetry?: Telemetry | null;
  /** Where log lines go instead of stdout (tests read them). */
  readonly logDestination?: NodeJS.WritableStream;
}

/**
 * Adapters that replace the production ones: `imports` replace the MongoDB module, and `providers`
 * are bound after the module's own, so each replaces the provider of the same token. A host that
 * binds JOB_PUBLISHER (it then binds JOB_CONTROL_PUBLISHER too) also replaces the RabbitMQ publisher, which is then never built (it would
 * connect), along with its `rabbitmq` readiness check.
 */
export interface ManagerInfrastructure {
  readonly imports: NonNullable<ModuleMetadata['imports']>;
  readonly providers: readonly Provider[];
}

/**
 * The composition root: the one place where ports meet adapters. Feature folders export arrays of
 * controllers and handlers (connections/connection.handlers.ts, jobs/job.handlers.ts); their
 * adapters are bound here. `/health`, `/readyz`, `/metrics` and `/version` come from PlatformModule.
 */
@Module({})
export class ManagerModule {
  static forRoot(config: ManagerConfig, options: ManagerModuleOptions = {}): DynamicModule {
    const tenancy = config.tenancy;
    // Embedded stores (the standalone service) are one shared store: they cannot keep tenants apart.
    if (tenancy.multiTenant && options.infrastructure) throw new ConfigError([MULTI_TENANT_EMBEDDED]);
    const telemetry = options.telemetry ?? null;
    // Single-tenant: the deployment's database and broker. Multi-tenant: no shared database or vhost
    // at all; each port resolves the verified tenant's own, through the tenant-manager.
    const storage: Provider[] = tenancy.multiTenant
      ? multiTenantProviders(tenancy)
      : [
          probesProvider,
          { provide: CONNECTION_REPOSITORY, useClass: MongoConnectionRepository },
          { provide: ACTIVE_EXECUTION_CHECKER, useClass: MongoActiveExecutionChecker },
          { provide: INTERNAL_DATASOURCES, useValue: new EnvInternalDatasources(config.internalDatasources) },
          { provide: JOB_REPOSITORY, useClass: MongoJobRepository },
          ...(binds(options.infrastructure, JOB_PUBLISHER) ? [] : JOB_PUBLISHER_PROVIDERS),
        ];
    // Built only when used: a host with embedded stores has no MongoDB settings at all.
    const sharedDatabase = () => (tenancy.multiTenant ? [] : [MongoModule.forRoot(mongoSettings(config), [{ name: JOB_MODEL, schema: JobSchema }])]);
    return {
      module: ManagerModule,
      imports: [
        CqrsModule.forRoot(),
        LoggerModule.forRoot(loggerModuleOptions({
          level: config.logLevel,
          service: 'manager',
          ...(options.logDestination ? { destination: options.logDestination } : {}),
        })),
        PlatformModule.forRoot({
          service: 'manager',
          version: config.version,
          readyzVersion: config.serviceVersion,
          deploymentMode: config.deploymentMode,
          drainDelaySec: config.drainDelaySec,
          ...(telemetry ? { telemetry } : {}),
        }),
        ...(options.infrastructure ? options.infrastructure.imports : sharedDatabase()),
        RedisModule.forRoot({ settings: config.redis, keyPrefix: options.redisKeyPrefix }),
      ],
      controllers: [...CONNECTION_CONTROLLERS, ...JOB_CONTROLLERS],
      providers: [
        { provide: MANAGER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: SYSTEM_CLOCK },
        { provide: TELEMETRY, useValue: telemetry },
        { provide: TelemetryShutdown, useFactory: () => new TelemetryShutdown(telemetry) },
        ErrorFilter,
        { provide: APP_FILTER, useExisting: ErrorFilter },
        { provide: PLUGIN_AUTH_OPTIONS, useValue: config.pluginAuth },
        PluginAuthorizer,
        ...tenantGuardProviders(tenancy),
        ...storage,
        // Connections
        { provide: RATE_LIMITER, useClass: RedisRateLimiter },
        RedisSchemaCache,
        { provide: SCHEMA_CACHE_INVALIDATOR, useExisting: RedisSchemaCache },
        { provide: CONNECTION_RESOLVER, useExisting: ConnectionDirectory },
        engineProvider,
        { provide: DIAL_SLOTS, useFactory: () => new KeyedSemaphore(DIALS_PER_CONNECTION) },
        {
          provide: SCHEMA_CHECK,
          inject: [ENGINE, DIAL_SLOTS],
          useFactory: (engine: Engine, slots: KeyedSemaphore) => new LimitedSchemaCheck(new EngineSchemaCheck(engine), slots),
        },
        ...CONNECTION_HANDLERS,
        // Jobs
        {
          provide: CONNECTIVITY_CHECK,
          inject: [ENGINE, DIAL_SLOTS],
          useFactory: (engine: Engine, slots: KeyedSemaphore) => new LimitedConnectivityCheck(new EngineConnectivityCheck(engine), slots),
        },
        dispatchSweepProvider,
        ...JOB_HANDLERS,
        // GET /v1/fetcher/{id}/result: nothing of it is built (no S3 client) unless it is enabled.
        ...(config.resultDownload.enabled ? [...JOB_RESULT_HANDLERS, ...(binds(options.infrastructure, RESULT_READER) ? [] : [resultReaderProvider])] : []),
        ...(options.infrastructure?.providers ?? []),
      ],
    };
  }
}

/** True when the host's infrastructure binds `token`. */
function binds(infrastructure: ManagerInfrastructure | undefined, token: unknown): boolean {
  return (infrastructure?.providers ?? []).some((provider) => typeof provider === 'object' && 'provide' in provider && provider.provide === token);
}
