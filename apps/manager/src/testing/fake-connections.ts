import type { SchemaCheck, SchemaProblem } from '../ports/schema-check.port';
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

/** Answers the problems set for a connection (none by default), or rejects with `failWith`; records what it was asked. */
export class FakeSchemaCheck implements SchemaCheck {
  readonly problems = new Map<string, SchemaProblem[]>();
  readonly checked: {
    configName: string;
    tables: string[];
    bounded: boolean;
    incremental?: Readonly<Record<string, unknown>>;
    filterFields?: Record<string, readonly string[]>;
  }[] = [];
  failWith?: Error;

  async check(
    _tenant: TenantContext,
    connection: ResolvedConnection,
    tables: ReadonlyMap<string, readonly string[]>,
    signal?: AbortSignal,
    incremental?: Readonly<Record<string, unknown>>,
    filterFields?: ReadonlyMap<string, readonly string[]>,
  ): Promise<SchemaProblem[]> {
    await Promise.resolve();
    this.checked.push({
      configName: connection.configName,
      tables: [...tables.keys()],
      bounded: signal !== undefined,
      ...(incremental ? { incremental } : {}),
      ...(filterFields && filterFields.size > 0 ? { filterFields: Object.fromEntries(filterFields) } : {}),
    });
    if (this.failWith) throw this.failWith;
    return this.problems.get(connection.configName) ?? [];
  }
}
