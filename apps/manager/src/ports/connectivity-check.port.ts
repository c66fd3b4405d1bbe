import type { TenantContext } from '@fetcher/engine';
import type { ResolvedConnection } from './connection-resolver.port';

/** Why a dial was refused before it could tell anything about the datasource, or that it failed. */
export type ConnectivityOutcome = 'ok' | 'host_not_allowed' | 'ssl_mode_not_allowed' | 'unavailable';

/**
 * Dials a stored connection once and closes it, through the host-safety guard (every resolved
 * address checked, the dial pinned to a checked one). MUST give up after `timeoutMs` with
 * `unavailable`, and MUST NOT reject: every failure is an outcome, so nothing a driver says can
 * leak into a response.
 */
export interface ConnectivityCheck {
  check(tenant: TenantContext, connection: ResolvedConnection, timeoutMs: number): Promise<ConnectivityOutcome>;
}
export const CONNECTIVITY_CHECK = Symbol('ConnectivityCheck');
