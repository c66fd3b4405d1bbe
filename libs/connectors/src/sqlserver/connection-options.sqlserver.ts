/**
 * mssql (tedious) pool configuration for one datasource. Pure: the connector resolves the dial target first and passes it in.
 */
import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';
import type { Socket } from 'node:net';
import type { config as MssqlConfig } from 'mssql';
import type { DialTarget } from '../common/host-safety';
import type { ConnectorTimeouts } from '../common/timeouts';
import type { TediousConnector } from './pinned-connector.sqlserver';

export const SQLSERVER_SSL_MODES: readonly string[] = Object.freeze(['disable', 'false', 'true', 'strict']);

export interface SqlServerEncryption {
  readonly encrypt: boolean | 'strict';
  readonly trustServerCertificate: boolean;
}

/**
 * `""`/`disable`/`false`: no encryption (the original turned encryption on here). `true`: encrypt
 * and trust the server certificate. `strict`: TDS 8.0, verified against `ca` or the system store.
 */
export function sqlServerEncryption(mode: string): SqlServerEncryption {
  switch (mode) {
    case 'true':
      return { encrypt: true, trustServerCertificate: true };
    case 'strict':
      return { encrypt: 'strict', trustServerCertificate: false };
    default:
      return { encrypt: false, trustServerCertificate: false };
  }
}

export interface SqlServerPoolInput {
  readonly descriptor: ConnectionDescriptor;
  readonly secrets: ConnectionSecrets;
  readonly target: DialTarget;
  readonly sslMode: string;
  readonly timeouts: ConnectorTimeouts;
  /** The socket factory that keeps every dial, login routing included, on guarded addresses. */
  readonly connector?: TediousConnector;
}

/**
 * Address pinning: `server` is the checked address and `options.serverName` the original
 * hostname, which tedious uses for SNI and the certificate check instead of `server`.
 */
export function sqlServerPoolConfig(input: SqlServerPoolInput): MssqlConfig {
  const { descriptor, secrets, target, sslMode, timeouts, connector } = input;
  const material = secrets.ssl;
  const credentials = {
    ...(material?.ca ? { ca: material.ca } : {}),
    ...(material?.cert ? { cert: material.cert } : {}),
    ...(material?.key ? { key: material.key } : {}),
  };
  return {
    server: target.address,
    port: descriptor.port,
    user: descriptor.userName,
    ...(secrets.password !== undefined ? { password: secrets.password } : {}),
    ...(descriptor.databaseName ? { database: descriptor.databaseName } : {}),
    connectionTimeout: timeouts.connectMs,
    // The per-table budget is set on each request; this is the ceiling for anything else.
    requestTimeout: timeouts.filteredQueryMs,
    pool: { min: 0, max: 2 },
    options: {
      ...(target.servername ? { serverName: target.servername } : {}),
      ...sqlServerEncryption(sslMode),
      useUTC: true,
      connectTimeout: timeouts.connectMs,
      requestTimeout: timeouts.filteredQueryMs,
      appName: 'fetcher',
      ...(Object.keys(credentials).length > 0 ? { cryptoCredentialsDetails: credentials } : {}),
      // tedious calls it with (options, lookup, signal); its typings declare no parameters.
      ...(connector ? { connector: connector as unknown as () => Promise<Socket> } : {}),
    },
  };
}
