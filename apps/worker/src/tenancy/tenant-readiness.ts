import {
  type ProbeResult, type ReadinessProbe, type TenantAmqp, TenantManagerError, type TenantMongo, type TenantPool, type TenantProbeResolution,
  type TenantReadiness,
} from '@fetcher/platform';
import type { TenantManagerClient } from '@fetcher/platform';
import { FETCHER_SERVICE } from './tenant-resources';

/** The tenant-manager gets this long to list the active tenants. */
const LIST_TIMEOUT_MS = 1_000;
const CHECK_TIMEOUT_MS = 2_000;

const BREAKER_OPEN = { status: 503, body: { error: 'tenant manager circuit breaker open' } } as const;

/**
 * `/readyz/tenant/<id>` of the Worker: a tenant the tenant-manager lists as active gets two checks,
 * its database (a ping through the tenant pool) and its vhost (a channel opened and closed on its
 * connection). An unlisted tenant is 404; a tenant-manager that cannot list is 503 (an error thrown
 * here becomes "tenant manager unreachable: <reason>").
 */
export class WorkerTenantReadiness implements TenantReadiness {
  constructor(
    private readonly client: TenantManagerClient,
    private readonly mongo: TenantPool<TenantMongo>,
    private readonly amqp: TenantPool<TenantAmqp>,
  ) {}

  async resolve(tenantId: string, signal: AbortSignal): Promise<TenantProbeResolution> {
    if (this.client.breakerState === 'open') return BREAKER_OPEN;
    let active;
    try {
      active = await this.client.getActiveTenants(FETCHER_SERVICE, { signal: AbortSignal.any([signal, AbortSignal.timeout(LIST_TIMEOUT_MS)]) });
    } catch (error) {
      if (error instanceof TenantManagerError && error.reason === 'circuit_open') return BREAKER_OPEN;
      throw error;
    }
    if (!active.some((t) => t.id === tenantId)) return { status: 404, body: { error: 'tenant not found', tenant_id: tenantId } };
    return { probes: [this.#mongoProbe(tenantId), this.#rabbitProbe(tenantId)] };
  }

  #mongoProbe(tenantId: string): ReadinessProbe {
    return {
      name: 'mongodb',
      timeoutMs: CHECK_TIMEOUT_MS,
      check: async (): Promise<ProbeResult> => {
        await this.mongo.use(tenantId, (m) => m.db.command({ ping: 1 }));
        return { status: 'up' };
      },
    };
  }

  #rabbitProbe(tenantId: string): ReadinessProbe {
    return {
      name: 'rabbitmq',
      timeoutMs: CHECK_TIMEOUT_MS,
      check: async (): Promise<ProbeResult> => {
        const tls = await this.amqp.use(tenantId, async (a) => {
          const channel = a.connection.createChannel();
          try {
            await channel.waitForConnect();
          } finally {
            await channel.close().catch(() => undefined);
          }
          return a.tls;
        });
        return { status: 'up', tls };
      },
    };
  }
}
