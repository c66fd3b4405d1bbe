/**
 * pg pool options: the pinned address, the
 * credentials, the SSL mode mapped to TLS options (with the CA, client certificate and key really
 * passed to the driver), the connect timeout, and raw-text type parsing.
 */
import type { ConnectionDescriptor, ConnectionSecrets, ConnectionSslSecrets } from '@fetcher/engine';
import type { PoolConfig } from 'pg';
import type { ConnectionOptions } from 'node:tls';
import type { DialTarget } from '../common/host-safety';
import type { ConnectorTimeouts } from '../common/timeouts';
import { RAW_TEXT_TYPES } from './value-mapping.postgres';

/** libpq's modes; case-sensitive; '' means the driver default (`disable`). */
export const POSTGRES_SSL_MODES: readonly string[] = Object.freeze(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']);

/** One connection attempt's TLS: `false` is plain TCP. */
export type PostgresTls = false | ConnectionOptions;

/** Pool size per connector. */
export const POOL_MAX = 2;

/**
 * Session settings that make the server's text forms the ones the value mapping expects: UTC
 * timestamps, ISO dates, shortest-exact floats (also on servers before 12), hex bytea.
 */
export const POSTGRES_SESSION_SQL =
  "SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex'";

/** The first statement on a new pool: a ping that also tells whether COPY's text is UTF-8. */
export const POSTGRES_PING_SQL = "SELECT current_setting('server_encoding') AS server_encoding";

/**
 * The TLS attempts for `mode`, in order (libpq semantics):
 * - `disable`/'': plain.
 * - `allow`: plain first, TLS (unverified) if that fails.
 * - `prefer`: TLS (unverified) first, plain if that fails.
 * - `require`: TLS without verification; with a CA given, the chain is verified (as libpq does with a root file).
 * - `verify-ca`: TLS, chain verified against the CA (or the system store), no hostname check.
 * - `verify-full`: TLS, chain and hostname verified; the hostname is the one the user configured, not the pinned IP.
 * A client certificate and key, when given, are sent in every TLS attempt.
 */
export function postgresTlsAttempts(mode: string, pem: ConnectionSslSecrets | undefined, servername: string): PostgresTls[] {
  const client: ConnectionOptions = {
    ...(pem?.cert ? { cert: pem.cert } : {}),
    ...(pem?.key ? { key: pem.key } : {}),
    // SNI and certificate checks use the configured hostname; an IP literal sends no SNI (RFC 6066).
    ...(servername !== '' ? { servername } : {}),
  };
  const ca = pem?.ca ? { ca: pem.ca } : {};
  const unverified: ConnectionOptions = { ...client, rejectUnauthorized: false };
  const chainOnly: ConnectionOptions = { ...client, ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  const full: ConnectionOptions = { ...client, ...ca, rejectUnauthorized: true };
  switch (mode) {
    case 'allow':
      return [false, unverified];
    case 'prefer':
      return [unverified, false];
    case 'require':
      return [pem?.ca ? chainOnly : unverified];
    case 'verify-ca':
      return [chainOnly];
    case 'verify-full':
      return [full];
    default:
      return [false];
  }
}

export interface PostgresPoolInput {
  readonly descriptor: ConnectionDescriptor;
  readonly secrets: ConnectionSecrets;
  readonly target: DialTarget;
  readonly tls: PostgresTls;
  readonly timeouts: ConnectorTimeouts;
}

export function postgresPoolConfig({ descriptor, secrets, target, tls, timeouts }: PostgresPoolInput): PoolConfig {
  const password = secrets.password ?? '';
  return {
    // Pinned: the driver dials the checked address and never resolves the name again.
    host: target.address,
    port: descriptor.port,
    user: descriptor.userName,
    database: descriptor.databaseName,
    // A function: pg would read PGPASSWORD or ~/.pgpass for an empty string, and keeps no copy on the client.
    password: () => password,
    ssl: tls,
    sslnegotiation: 'postgres',
    client_encoding: 'UTF8',
    connectionTimeoutMillis: timeouts.connectMs,
    max: POOL_MAX,
    // Idle sessions stay until the connector closes: a host that keeps connectors between jobs (the
    // Worker) decides how long, and pg's own 10 s default would end them before its idle time.
    idleTimeoutMillis: 0,
    application_name: 'fetcher',
    keepAlive: true,
    types: RAW_TEXT_TYPES,
  };
}
