import type { FactoryProvider } from '@nestjs/common';
import { SINGLE_TENANT_ID } from '@fetcher/contracts';
import { createTenantContext, type TenantContext } from '@fetcher/engine';
import { Lifecycle, MetricsRegistry, type TenantManagerClient } from '@fetcher/platform';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { JOB_PUBLISHER, type JobPublisher } from '../../ports/job-publisher.port';
import { JOB_REPOSITORY, type JobRepository } from '../../ports/job-repository.port';
import { DispatchMarks } from '../commands/dispatch-marks';
import { DispatchSweep } from './dispatch-sweep';
import { TENANT_MANAGER_CLIENT } from '../../adapters/tenancy/tenant-manager.provider';
import { FETCHER_SERVICE } from '../../auth/tenant-admission';

export const DISPATCH_SWEEP_REPUBLISHED_TOTAL = 'fetcher_manager_dispatch_sweep_republished_total';
export const DISPATCH_SWEEP_REDISPATCHED_TOTAL = 'fetcher_manager_dispatch_sweep_redispatched_total';

/** The sweep as a subsystem: started with the application, stopped (in-flight pass finished) on drain. */
export const dispatchSweepProvider: FactoryProvider<DispatchSweep> = {
  provide: DispatchSweep,
  inject: [JOB_REPOSITORY, JOB_PUBLISHER, CLOCK, MANAGER_CONFIG, MetricsRegistry, Lifecycle, { token: TENANT_MANAGER_CLIENT, optional: true }],
  useFactory: (
    jobs: JobRepository, publisher: JobPublisher, clock: Clock, config: ManagerConfig, metrics: MetricsRegistry, lifecycle: Lifecycle, client?: TenantManagerClient,
  ) => {
    const sweep = new DispatchSweep(
      jobs,
      publisher,
      clock,
      // Single-tenant: the shared store's one tenant. Multi-tenant: every tenant the tenant-manager lists as active, at each pass.
      config.tenancy.multiTenant && client ? () => activeTenants(client) : createTenantContext(SINGLE_TENANT_ID),
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

/** The tenants to sweep: those the tenant-manager lists as active for `fetcher` (an id the guard would refuse is skipped). */
async function activeTenants(client: TenantManagerClient): Promise<TenantContext[]> {
  const out: TenantContext[] = [];
  for (const summary of await client.getActiveTenants(FETCHER_SERVICE)) {
    if (typeof summary.id === 'string' && /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,255}$/.test(summary.id)) out.push(createTenantContext(summary.id));
  }
  return out;
}

/** The post-answer `dispatched_at` writes, stopped (writes in flight finished) on drain like the sweep. */
export const dispatchMarksProvider: FactoryProvider<DispatchMarks> = {
  provide: DispatchMarks,
  inject: [JOB_REPOSITORY, Lifecycle],
  useFactory: (jobs: JobRepository, lifecycle: Lifecycle) => {
    const marks = new DispatchMarks(jobs);
    lifecycle.register(marks);
    return marks;
  },
};
