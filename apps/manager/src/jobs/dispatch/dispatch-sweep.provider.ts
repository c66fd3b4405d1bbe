import type { FactoryProvider } from '@nestjs/common';
import { SINGLE_TENANT_ID } from '@fetcher/contracts';
import { createTenantContext } from '@fetcher/engine';
import { Lifecycle, MetricsRegistry } from '@fetcher/platform';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_PUBLISHER, type JobPublisher } from '../../ports/job-publisher.port';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import { DispatchSweep } from './dispatch-sweep';

export const DISPATCH_SWEEP_REPUBLISHED_TOTAL = 'fetcher_manager_dispatch_sweep_republished_total';
export const DISPATCH_SWEEP_REDISPATCHED_TOTAL = 'fetcher_manager_dispatch_sweep_redispatched_total';

/** The sweep as a subsystem: started with the application, stopped (in-flight pass finished) on drain. */
export const dispatchSweepProvider: FactoryProvider<DispatchSweep> = {
  provide: DispatchSweep,
  inject: [JOB_REPOSITORY, JOB_PUBLISHER, CLOCK, MANAGER_CONFIG, MetricsRegistry, Lifecycle],
  useFactory: (jobs: JobRepository, publisher: JobPublisher, clock: Clock, config: ManagerConfig, metrics: MetricsRegistry, lifecycle: Lifecycle) => {
    const sweep = new DispatchSweep(
      jobs,
      publisher,
      clock,
      // The shared store's one tenant. Multi-tenant mode needs a sweep per tenant store; the module refuses it until then.
      createTenantContext(SINGLE_TENANT_ID),
      {
        intervalSec: config.dispatch.sweepIntervalSec,
        minAgeSec: config.dispatch.minAgeSec,
        maxAttempts: config.dispatch.maxAttempts,
        redispatchAfterSec: config.dispatch.redispatchAfterSec,
        maxRedispatches: config.dispatch.maxRedispatches,
      },
      metrics.counter(DISPATCH_SWEEP_REPUBLISHED_TOTAL, 'Jobs the dispatch sweep republished after their first publish was never confirmed.'),
      metrics.counter(DISPATCH_SWEEP_REDISPATCHED_TOTAL, 'Jobs the dispatch sweep re-dispatched because they stayed pending after their message could no longer be used.'),
    );
    lifecycle.register(sweep);
    return sweep;
  },
};
