import { type DynamicModule, Module } from '@nestjs/common';
import { MANAGER_CONFIG, type ManagerConfig } from './config/manager.config';
import { SystemController } from './system/system.controller';

/** The composition root: the one place where ports meet adapters. */
@Module({})
export class ManagerModule {
  static forRoot(config: ManagerConfig): DynamicModule {
    return {
      module: ManagerModule,
      controllers: [SystemController],
      providers: [{ provide: MANAGER_CONFIG, useValue: config }],
    };
  }
}
