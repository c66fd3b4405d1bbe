import type { TenantSummary } from '@fetcher/platform';
import type { TenantScope } from './tenant-scope';

import type { BackgroundPass } from '../jobs/background/background-loops';

/**
 * Runs a pass once for every tenant the tenant-manager lists as active, each within that tenant's
 * scope (its database, its vhost), one tenant after another. A tenant whose pass fails is logged and
 * the others go on; a list that fails skips this round.
 */
export function perActiveTenant(
  pass: BackgroundPass,
  name: string,
  listActive: (signal: AbortSignal) => Promise<readonly TenantSummary[]>,
  scope: TenantScope,
  logger: { warn(message: string): void },
  listTimeoutMs = 5_000,
): BackgroundPass {
  return {
    async runOnce(): Promise<number> {
      let tenants: readonly TenantSummary[];
      try {
        tenants = await listActive(AbortSignal.timeout(listTimeoutMs));
      } catch (error) {
        logger.warn(`${name}: the tenant-manager list failed (${error instanceof Error ? error.name : 'error'}); next pass retries`);
        return 0;
      }
      let total = 0;
      for (const { id } of tenants) {
        if (!id) continue;
        try {
          const done = await scope.run(id, () => pass.runOnce());
          if (typeof done === 'number') total += done;
        } catch (error) {
          logger.warn(`${name}: tenant ${id} failed (${error instanceof Error ? error.name : 'error'}); next pass retries`);
        }
      }
      return total;
    },
  };
}
