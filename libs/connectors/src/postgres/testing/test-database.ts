import type { ConnectionDescriptor } from '@fetcher/engine';
import { Client } from 'pg';
import { connectorAttributes, connectorSecrets } from '../../common/attributes';
import { resolveTimeouts, type ConnectorOptions } from '../../common/options';
import { PostgresConnector } from '../connector.postgres';

/** The loopback PostgreSQL of the integration suites: trust authentication, database `test`. */
const SERVER = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' } as const;

/** A session outside any connector, for fixtures, cleanup and locks; the caller connects and ends it. */
export function adminClient(): Client {
  return new Client({ ...SERVER });
}

/** Connects `admin` and runs a suite's fixtures on it, in order. The suite ends it in afterAll. */
export async function seed(admin: Client, fixtures: readonly string[]): Promise<void> {
  await admin.connect();
  for (const sql of fixtures) await admin.query(sql);
}

/** A descriptor of the test database that reads the schemas in `scope`. */
export function testDescriptor(configName: string, scope: string[], overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor {
  return {
    configName,
    type: 'POSTGRESQL',
    host: SERVER.host,
    port: SERVER.port,
    databaseName: SERVER.database,
    userName: SERVER.user,
    sslMode: '',
    hostAttributes: { schemaScope: scope },
    ...overrides,
  };
}

/** A connector built past the factory, so that a suite can choose the read path (COPY or rows only). */
export function connectorWithReadPath(descriptor: ConnectionDescriptor, options: ConnectorOptions, copyFastPath: boolean): PostgresConnector {
  return new PostgresConnector({
    descriptor,
    attributes: connectorAttributes(descriptor),
    secrets: connectorSecrets(descriptor),
    options,
    timeouts: resolveTimeouts(options),
    sslMode: '',
    copyFastPath,
  });
}
