import type { Engine, TenantContext } from '@fetcher/engine';
import { dialFailure } from '../../connections/dial-errors';
import { Errors } from '../../errors/catalogue';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import type { ConnectivityCheck, ConnectivityOutcome } from '../../ports/connectivity-check.port';

/**
 * The job-creation dial, through the engine's test-connection operation: the connectors resolve
 * the host once, check every address against the host-safety policy, dial a checked address and
 * close. Failures become outcomes by type; no driver text goes anywhere.
 */
export class EngineConnectivityCheck implements ConnectivityCheck {
  constructor(private readonly engine: Pick<Engine, 'testConnection'>) {}

  async check(tenant: TenantContext, connection: ResolvedConnection, timeoutMs: number): Promise<ConnectivityOutcome> {
    try {
      await this.engine.testConnection(tenant, connection.configName, { signal: AbortSignal.timeout(timeoutMs) });
      return 'ok';
    } catch (error) {
      const answer = dialFailure(error, connection.descriptor.sslMode ?? '', () => Errors.connectionDown(connection.configName));
      if (answer.code === 'FET-0414') return 'host_not_allowed';
      if (answer.code === 'FET-0413') return 'ssl_mode_not_allowed';
      return 'unavailable';
    }
  }
}
