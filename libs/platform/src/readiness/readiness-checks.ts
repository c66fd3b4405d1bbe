import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import { type ReadinessProbe } from './probe';
import { probeIndicator } from './probe-indicator';
import { type CheckObserver } from './run-probe';

/**
 * Runs a set of probes through Terminus: one indicator each, all in parallel by `HealthCheckService`,
 * every call afresh (nothing is cached). Returns Terminus' result whatever it says, for the mapper.
 */
@Injectable()
export class ReadinessChecks {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async run(probes: readonly ReadinessProbe[], observe?: CheckObserver, signal?: AbortSignal): Promise<HealthCheckResult> {
    try {
      return await this.health.check(probes.map((probe) => probeIndicator(this.indicators, probe, observe, signal)));
    } catch (error) {
      // Terminus answers `error` and `shutting_down` by throwing a 503 that carries its result.
      if (error instanceof ServiceUnavailableException) return error.getResponse() as HealthCheckResult;
      throw error;
    }
  }
}
