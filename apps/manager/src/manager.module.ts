import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { MongoActiveExecutionChecker } from './adapters/mongo/active-execution-checker.mongo';
import { MongoConnectionRepository } from './adapters/mongo/connection-repository.mongo';
import { MongoModule } from './adapters/mongo/mongo.module';
import { MANAGER_CONFIG, type ManagerConfig } from './config/manager.config';
import { ErrorFilter } from './http/error.filter';
import { ACTIVE_EXECUTION_CHECKER } from './ports/active-execution-checker.port';
import { CLOCK, SYSTEM_CLOCK } from './ports/clock.port';
import { CONNECTION_REPOSITORY } from './ports/connection-repository.port';
import { SystemController } from './system/system.controller';

/**
 * The composition root: the one place where ports meet adapters. Feature folders export arrays of
 * handlers and controllers (connections/connection.handlers.ts, jobs/job.handlers.ts); their
 * adapters are bound here.
 */
@Module({})
export class ManagerModule {
  static forRoot(config: ManagerConfig): DynamicModule {
    return {
      module: ManagerModule,
      imports: [CqrsModule.forRoot(), MongoModule.forRoot(config.mongo)],
      controllers: [SystemController],
      providers: [
        { provide: MANAGER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: SYSTEM_CLOCK },
        ErrorFilter,
        { provide: APP_FILTER, useExisting: ErrorFilter },
        { provide: CONNECTION_REPOSITORY, useClass: MongoConnectionRepository },
        { provide: ACTIVE_EXECUTION_CHECKER, useClass: MongoActiveExecutionChecker },
      ],
    };
  }
}
