import { type ConnectionDescriptor, type ConnectionSecrets, withConnectionSecrets } from '@fetcher/engine';
import type { InternalDatasource } from '../config/worker.config';
import type { ResolvedConnection } from '../ports/connection-resolver.port';

/**
 * Building a `ResolvedConnection`, for every resolver (MongoDB's, the standalone service's): the
 * decrypted secrets go into the descriptor's typed `secrets` and, for scrubbing error texts, into
 * `secretValues`; nothing else carries them.
 */
export function resolvedConnection(descriptor: ConnectionDescriptor, secrets: ConnectionSecrets, internal: boolean): ResolvedConnection {
  const kept = keptSecrets(secrets);
  return { descriptor: withConnectionSecrets(descriptor, kept), internal, secretValues: secretValuesOf(secrets) };
}

/** An operator-configured datasource (`DATASOURCE_<X>_*`): exempt from host safety. */
export function resolvedInternal(d: InternalDatasource): ResolvedConnection {
  const descriptor: ConnectionDescriptor = {
    configName: d.configName,
    type: d.type,
    host: d.host,
    port: d.port,
    databaseName: d.databaseName,
    userName: d.userName,
    ...(d.sslMode !== undefined ? { sslMode: d.sslMode } : {}),
    hostAttributes: { metadata: d.metadata, internal: true },
  };
  return resolvedConnection(descriptor, { password: d.password, ssl: d.ssl }, true);
}

/** The secrets without absent entries (an empty password is a password); `undefined` when none is left. */
function keptSecrets(secrets: ConnectionSecrets): ConnectionSecrets | undefined {
  const ssl = Object.fromEntries(Object.entries(secrets.ssl ?? {}).filter(([, v]) => v !== undefined)) as ConnectionSecrets['ssl'];
  const out: { password?: string; ssl?: ConnectionSecrets['ssl'] } = {};
  if (secrets.password !== undefined) out.password = secrets.password;
  if (ssl && Object.keys(ssl).length > 0) out.ssl = ssl;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Every decrypted secret long enough to be worth scrubbing from error texts. */
function secretValuesOf(secrets: ConnectionSecrets): string[] {
  return [secrets.password, secrets.ssl?.key, secrets.ssl?.cert].filter((v): v is string => typeof v === 'string' && v.length >= 4);
}
