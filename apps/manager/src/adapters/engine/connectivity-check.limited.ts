import type { TenantContext } from '@fetcher/engine';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import type { ConnectivityCheck, ConnectivityOutcome } from '../../ports/connectivity-check.port';
import { KeyedSemaphore } from './keyed-semaphore';

/** Job-creation dials one stored connection may have in flight at once, per process. */
export const DIALS_PER_CONNECTION = 4;
/** The one semaphore of job-creation dials, shared by the connectivity check and the schema check. */
export const DIAL_SLOTS = Symbol('KeyedSemaphore');

/**
 * Bounds the dials to each stored connection: a burst of job requests for one datasource must not
 * open a connection per request and exhaust the customer's server (`max_connections`). Callers past
 * the limit wait for a slot instead of dialling. The wait counts against the check's own budget, so
 * the port's promise holds: a connection that cannot be dialled within `timeoutMs`, whether it is
 * slow or merely busy with our own dials, answers `unavailable`.
 */
export class LimitedConnectivityCheck implements ConnectivityCheck {
  readonly #slots: KeyedSemaphore;

  /** `slots`: a limit, or the semaphore shared with the job-creation schema check (one budget of dials per connection). */
  constructor(
    private readonly inner: ConnectivityCheck,
    slots: KeyedSemaphore | number = DIALS_PER_CONNECTION,
  ) {
    this.#slots = typeof slots === 'number' ? new KeyedSemaphore(slots) : slots;
  }

  async check(tenant: TenantContext, connection: ResolvedConnection, timeoutMs: number): Promise<ConnectivityOutcome> {
    const started = Date.now();
    const release = await this.#slots.acquire(dialSlotKey(tenant, connection), timeoutMs);
    if (!release) return 'unavailable';
    try {
      return await this.inner.check(tenant, connection, Math.max(1, timeoutMs - (Date.now() - started)));
    } finally {
      release();
    }
  }
}

/** The semaphore key of one stored connection. Config names are unique among a tenant's live connections, and NUL appears in neither part. */
export function dialSlotKey(tenant: TenantContext, connection: ResolvedConnection): string {
  return `${tenant.tenantId}\u0000${connection.configName}`;
}
