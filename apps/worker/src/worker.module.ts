import { type DynamicModule, Module } from '@nestjs/common';
import { WORKER_CONFIG, type WorkerConfig } from './config/worker.config';
import { HealthController } from './health/health.controller';

/** The composition root: the one place where ports meet adapters. */
@Module({})
export class WorkerModule {
  static forRoot(config: WorkerConfig): DynamicModule {
    return {
      module: WorkerModule,
      controllers: [HealthController],
      providers: [{ provide: WORKER_CONFIG, useValue: config }],
    };
  }
}
