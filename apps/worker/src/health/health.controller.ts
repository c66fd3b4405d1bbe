import { Controller, Get } from '@nestjs/common';

/** The Worker's health server (worker-engine.md A11). Readiness and metrics arrive with the Worker issue. */
@Controller()
export class HealthController {
  @Get('health')
  health(): { status: 'healthy' } {
    return { status: 'healthy' };
  }
}
