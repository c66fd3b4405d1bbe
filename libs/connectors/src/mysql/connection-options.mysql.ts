/**
 * mysql2 pool options for one datasource.
 * Pure: the connector resolves the dial target first and passes it in.
 */
import { connect as netConnect, type Socket } from 'node:net';
import type { ConnectionDescriptor, ConnectionSecrets, ConnectionSslSecrets } from '@fetcher/engine';
import type { PoolOptions, SslOptions } from 'mysql2';
import type { DialTarget } from '../common/host-safety';
import type { ConnectorTimeouts } from '../common/timeouts';

export const MYSQL_SSL_MODES: readonly string[] = Object.freeze(['false', 'true', 'skip-verify', 'preferred']);

/**
 * `""`/`false`: plain. `true`: TLS, chain and hostname verified (`ca` when given, else the system
 * store). `skip-verify`: TLS without verification. `preferred`: TLS without verification, and the
 * connector retries plain when the server has no TLS. Client `cert`/`key` ride along whenever TLS is on.
 */
export function mysqlSslOptions(mode: string, material: ConnectionSslSecrets | undefined): SslOptions | undefined {
  if (mode === '' || mode === 'false') return undefined;
  const verify = mode === 'true';
  return {
    ...(material?.ca ? { ca: material.ca } : {}),
    ...(material?.cert ? { cert: material.cert } : {}),
    ...(material?.key ? { key: material.key } : {}),
    rejectUnauthorized: verify,
    verifyIdentity: verify,
  };
}

export type SocketConnect = (options: { host: string; port: number; family: 4 | 6 }) => Socket;

/**
 * Address pinning. mysql2 3.x takes the TLS server name from `host` and has no separate
 * `ssl.servername`, so `host` stays the original name (SNI and the identity check use it) while
 * this factory opens the TCP connection to the checked address: the name is never resolved again.
 */
export function pinnedSocketFactory(target: DialTarget, port: number, connect: SocketConnect = netConnect): () => Socket {
  return () => {
    const socket = connect({ host: target.address, port, family: target.family });
    socket.setNoDelay(true);
    return socket;
  };
}

export interface MysqlPoolInput {
  readonly descriptor: ConnectionDescriptor;
  readonly secrets: ConnectionSecrets;
  readonly target: DialTarget;
  readonly ssl: SslOptions | undefined;
  readonly timeouts: ConnectorTimeouts;
  readonly connect?: SocketConnect;
}

export function mysqlPoolOptions(input: MysqlPoolInput): PoolOptions {
  const { descriptor, secrets, target, ssl, timeouts } = input;
  return {
    host: descriptor.host,
    port: descriptor.port,
    stream: pinnedSocketFactory(target, descriptor.port, input.connect),
    user: descriptor.userName,
    ...(secrets.password !== undefined ? { password: secrets.password } : {}),
    ...(descriptor.databaseName ? { database: descriptor.databaseName } : {}),
    ...(ssl ? { ssl } : {}),
    charset: 'UTF8MB4_UNICODE_CI',
    connectTimeout: timeouts.connectMs,
    connectionLimit: 2,
    maxIdle: 2,
    queueLimit: 0,
    waitForConnections: true,
    multipleStatements: false,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    dateStrings: true,
  };
}

/**
 * Run once on every new connection: UTC for TIMESTAMP values, and backslash escapes on, because
 * mysql2 escapes bound values client-side with backslashes and NO_BACKSLASH_ESCAPES would break that.
 */
export const MYSQL_SESSION_SQL =
  "SET time_zone = '+00:00', sql_mode = REPLACE(REPLACE(REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES,', ''), " +
  "',NO_BACKSLASH_ESCAPES', ''), 'NO_BACKSLASH_ESCAPES', '')";
