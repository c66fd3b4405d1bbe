import type { ActiveExecutionChecker, TenantContext } from '@fetcher/engine';
import type { JobTable } from '@fetcher/contracts';
import { isActive } from '../../jobs/job';

/** True while a pending or processing job maps fields of the config name (the PATCH/DELETE gate). */
export class MemoryActiveExecutionChecker implements ActiveExecutionChecker {
  constructor(private readonly table: JobTable) {}

  hasActiveExecutions(_tenant: TenantContext, configName: string): Promise<boolean> {
    return Promise.resolve(this.table.all().some((job) => isActive(job.status) && Object.hasOwn(job.mappedFields, configName)));
  }
}
