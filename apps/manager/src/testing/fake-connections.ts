import type { TenantContext } from '@fetcher/engine';
import type { ResolvedConnection } from '../ports/connection-resolver.port';
import type { ConnectivityCheck, ConnectivityOutcome } from '../ports/connectivity-check.port';

/** A resolved stored connection (or an internal one), as the connectivity check receives it. */
export function aResolvedConnection(configName: string, overrides: Partial<Omit<ResolvedConnection, 'configName'>> = {}): ResolvedConnection {
  return {
    configName,
    internal: false,
    productName: 'reporter',
    descriptor: { configName, type: 'POSTGRESQL', host: 'db.example.com', port: 5432, databaseName: 'app', userName: 'app' },
    ...overrides,
  };
}

/** Answers `ok` unless an outcome was set for the connection; records every check. */
export class FakeConnectivityCheck implements ConnectivityCheck {
  readonly outcomes = new Map<string, ConnectivityOutcome>();
  readonly checked: string[] = [];

  async check(_tenant: TenantContext, connection: ResolvedConnection): Promise<ConnectivityOutcome> {
    await Promise.resolve();
    this.checked.push(connection.configName);
    return this.outcomes.get(connection.configName) ?? 'ok';
  }
}
