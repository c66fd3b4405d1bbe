import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { MongoActiveExecutionChecker } from './adapters/mongo/active-execution-checker.mongo';
import { MongoConnectionRepository } from './adapters/mongo/connection-repository.mongo';
import { MongoModule } from './adapters/mongo/mongo.module';
import { EnvInternalDatasources } from './adapters/config/internal-datasources.env';
import { engineProvider } from './adapters/engine/engine.provider';
import { RedisRateLimiter } from './adapters/redis/rate-limiter.redis';
import { RedisModule } from './adapters/redis/redis.module';
import { RedisSchemaCache } from './adapters/redis/schema-cache.redis';
import { MANAGER_CONFIG, type ManagerConfig } from './config/manager.config';
import { ConnectionDirectory } from './connections/connection-directory';
import { CONNECTION_CONTROLLERS, CONNECTION_HANDLERS } from './connections/connection.handlers';
import { ErrorFilter } from './http/error.filter';
import { ACTIVE_EXECUTION_CHECKER } from './ports/active-execution-checker.port';
import { CLOCK, SYSTEM_CLOCK } from './ports/clock.port';
import { CONNECTION_REPOSITORY } from './ports/connection-repository.port';
import { CONNECTION_RESOLVER } from './ports/connection-resolver.port';
import { INTERNAL_DATASOURCES } from './ports/internal-datasources.port';
import { RATE_LIMITER } from './ports/rate-limiter.port';
import { SCHEMA_CACHE_INVALIDATOR } from './ports/schema-cache-invalidator.port';
import { SystemController } from './system/system.controller';

/**
 * The composition root: the one place where ports meet adapters. Feature folders export arrays of
 * handlers and controllers (connections/connection.handlers.ts, jobs/job.handlers.ts); their
 * adapters are bound here.
 */
@Module({})
export class ManagerModule {
  /** `redisKeyPrefix`: tests give each run its own Redis key space. */
  static forRoot(config: ManagerConfig, options: { redisKeyPrefix?: string } = {}): DynamicModule {
    return {
      module: ManagerModule,
      imports: [
        CqrsModule.forRoot(),
        MongoModule.forRoot(config.mongo),
        RedisModule.forRoot({ settings: config.redis, keyPrefix: options.redisKeyPrefix }),
      ],
      controllers: [SystemController, ...CONNECTION_CONTROLLERS],
      providers: [
        { provide: MANAGER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: SYSTEM_CLOCK },
        ErrorFilter,
        { provide: APP_FILTER, useExisting: ErrorFilter },
        { provide: CONNECTION_REPOSITORY, useClass: MongoConnectionRepository },
        { provide: ACTIVE_EXECUTION_CHECKER, useClass: MongoActiveExecutionChecker },
        { provide: INTERNAL_DATASOURCES, useValue: new EnvInternalDatasources(config.internalDatasources) },
        { provide: RATE_LIMITER, useClass: RedisRateLimiter },
        RedisSchemaCache,
        { provide: SCHEMA_CACHE_INVALIDATOR, useExisting: RedisSchemaCache },
        { provide: CONNECTION_RESOLVER, useExisting: ConnectionDirectory },
        engineProvider,
        ...CONNECTION_HANDLERS,
      ],
    };
  }
}
