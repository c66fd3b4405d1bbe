/**
 * Connection string and client options. The string carries the original hostname; the address is pinned through
 * the socket `lookup` hook (pinned-lookup.mongodb.ts).
 */
import type { LookupFunction } from 'node:net';
import type { MongoClientOptions } from 'mongodb';
import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';
import type { ConnectorAttributes } from '../common/attributes';
import type { ConnectorTimeouts } from '../common/timeouts';

/** Case-sensitive. `""` (always accepted) is the driver default: no TLS. */
export const MONGO_SSL_MODES: readonly string[] = Object.freeze(['disable', 'false', 'true', 'enable', 'insecure']);

const PLAIN_MODES: ReadonlySet<string> = new Set(['', 'false', 'disable']);

/** One pool of at most two connections per connector (the server monitor's socket is separate). */
export const MONGO_POOL_MAX = 2;

/**
 * `mongodb://<user>:<password>@<host>:<port>/<db>?authSource=<X>&directConnection=true`.
 * `authSource` = `metadata.authSource`, else the database for internal datasources and `admin` for
 * stored connections. Without a user there is no userinfo at all.
 *
 * Always a direct connection, whatever the metadata says: with topology discovery a server could
 * answer `hello` with replica-set `hosts` (say `169.254.169.254:80`) and the driver would dial them
 * without the host guard seeing the address (IP literals never reach the socket's lookup hook).
 * Directly connected, the driver talks only to the checked host, and reads still work on a
 * secondary (it sends `primaryPreferred` to a single non-mongos server).
 */
export function mongoConnectionString(descriptor: ConnectionDescriptor, attributes: ConnectorAttributes, secrets: ConnectionSecrets = {}): string {
  const metadata = attributes.metadata ?? {};
  const user = descriptor.userName ?? '';
  const password = secrets.password ?? '';
  let userinfo = '';
  if (user !== '') {
    userinfo = encodeURIComponent(user);
    if (password !== '') userinfo += `:${encodeURIComponent(password)}`;
    userinfo += '@';
  }
  const authSource = nonEmpty(metadata.authSource) ?? (attributes.internal === true ? descriptor.databaseName : 'admin');
  const query = `authSource=${encodeURIComponent(authSource)}&directConnection=true`;
  const database = encodeURIComponent(descriptor.databaseName);
  return `mongodb://${userinfo}${hostPart(descriptor.host)}:${descriptor.port}/${database}?${query}`;
}

/**
 * TLS is on unless the mode is `""`/`false`/`disable`; `insecure` also skips certificate and
 * hostname checks. PEM material from the descriptor's secrets becomes the TLS `ca`/`cert`/`key`.
 */
export function mongoClientOptions(
  sslMode: string,
  secrets: ConnectionSecrets,
  timeouts: ConnectorTimeouts,
  lookup: LookupFunction,
): MongoClientOptions {
  const options: MongoClientOptions = {
    connectTimeoutMS: timeouts.mongoConnectMs,
    serverSelectionTimeoutMS: timeouts.mongoConnectMs,
    maxPoolSize: MONGO_POOL_MAX,
    minPoolSize: 0,
    // Exact 64-bit integers wherever the driver itself decodes (commands, aggregations).
    useBigInt64: true,
    retryWrites: false,
    lookup,
    tls: !PLAIN_MODES.has(sslMode),
  };
  if (!options.tls) return options;
  if (sslMode === 'insecure') options.tlsInsecure = true;
  const ssl = secrets.ssl ?? {};
  if (nonEmpty(ssl.ca)) options.ca = ssl.ca;
  if (nonEmpty(ssl.cert)) options.cert = ssl.cert;
  if (nonEmpty(ssl.key)) options.key = ssl.key;
  return options;
}

/** IPv6 literals need brackets in a connection string. */
function hostPart(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
