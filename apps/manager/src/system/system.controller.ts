import { Controller, Get, Inject } from '@nestjs/common';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';

/** Unauthenticated system routes (manager-api.md section 19). Readiness arrives with the Manager issue. */
@Controller()
export class SystemController {
  constructor(@Inject(MANAGER_CONFIG) private readonly config: ManagerConfig) {}

  @Get('health')
  health(): { status: 'healthy' } {
    return { status: 'healthy' };
  }

  @Get('version')
  version(): { version: string; requestDate: string } {
    return { version: this.config.version, requestDate: new Date().toISOString() };
  }
}
