import type { TenantContext } from '@fetcher/engine';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import type { ConnectivityCheck, ConnectivityOutcome } from '../../ports/connectivity-check.port';
import { KeyedSemaphore } from './keyed-semaphore';

/** Job-creation dials one stored connection may have in flight at once, per process. */
export const DIALS_PER_CONNECTION = 4;

/**
 * Bounds the dials to each stored connection: a burst of job requests for one datasource must not
 * open a connection per request and exhaust the customer's server (`max_connections`). Callers past
 * the limit wait for a slot instead of dialling. The wait counts against the check's own budget, so
 * the port's promise holds: a connection that cannot be dialled within `timeoutMs`, whether it is
 * slow or merely busy with our own dials, answers `unavailable`.
 */
export class LimitedConnectivityCheck implements ConnectivityCheck {
  readonly #slots: KeyedSemaphore;

  constructor(
    private readonly inner: ConnectivityCheck,
    limit = DIALS_PER_CONNECTION,
  ) {
    this.#slots = new KeyedSemaphore(limit);
  }

  async check(tenant: TenantContext, connection: ResolvedConnection, timeoutMs: number): Promise<ConnectivityOutcome> {
    const started = Date.now();
    // Config names are unique among a tenant's live connections, and NUL appears in neither part.
    const release = await this.#slots.acquire(`${tenant.tenantId}\u0000${connection.configName}`, timeoutMs);
    if (!release) return 'unavailable';
    try {
      return await this.inner.check(tenant, connection, Math.max(1, timeoutMs - (Date.now() - started)));
    } finally {
      release();
    }
  }
}
