import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';
import type { KeyRing } from '@fetcher/platform';
import type { StoredConnection } from '@fetcher/contracts';
import type { InternalDatasource } from '../../config/worker.config';
import type { ConnectionResolver, ResolvedConnection } from '../../ports/connection-resolver.port';
import { resolvedConnection, resolvedInternal } from '../../jobs/resolved-connections';

/** The live stored connections, as the embedded Manager's connection repository holds them in the same process. */
export interface LiveConnections {
  live(): StoredConnection[];
}

/**
 * The Worker's embedded connection resolver, over the connections the embedded Manager stores:
 * internal datasources first, then live stored connections, whose secrets are decrypted with the key
 * ring entry named by the record's key version. Plaintext exists only in the returned objects.
 */
export class MemoryConnectionResolver implements ConnectionResolver {
  constructor(
    private readonly connections: LiveConnections,
    private readonly ring: KeyRing,
    private readonly internal: readonly InternalDatasource[] = [],
  ) {}

  resolve(names: readonly string[]): Promise<ResolvedConnection[]> {
    const wanted = new Set(names);
    const resolved: ResolvedConnection[] = [];
    for (const d of this.internal) {
      if (!wanted.delete(d.configName)) continue;
      resolved.push(resolvedInternal(d));
    }
    for (const stored of this.connections.live()) {
      if (!wanted.delete(stored.configName)) continue;
      resolved.push(this.#fromStored(stored));
    }
    return Promise.resolve(resolved);
  }

  #fromStored(stored: StoredConnection): ResolvedConnection {
    const reveal = (ciphertext: string | undefined): string | undefined =>
      ciphertext !== undefined && ciphertext !== '' ? this.ring.decryptCredential(ciphertext, stored.keyVersion) : undefined;
    const ssl = stored.ssl;
    const sslSecrets = Object.fromEntries(
      Object.entries({
        ca: reveal(ssl?.caEncrypted) ?? ssl?.legacyCa,
        cert: reveal(ssl?.certEncrypted) ?? ssl?.legacyCert,
        key: reveal(ssl?.keyEncrypted) ?? ssl?.legacyKey,
      }).filter(([, v]) => v !== undefined && v !== ''),
    );
    const password = reveal(stored.passwordEncrypted);
    const secrets: ConnectionSecrets = {
      ...(password !== undefined ? { password } : {}),
      ...(Object.keys(sslSecrets).length > 0 ? { ssl: sslSecrets } : {}),
    };
    const metadata = Object.fromEntries(Object.entries(stored.metadata ?? {}).map(([k, v]) => [k, String(v)]));
    const descriptor: ConnectionDescriptor = {
      id: stored.id,
      configName: stored.configName,
      type: stored.type,
      host: stored.host,
      port: stored.port,
      databaseName: stored.databaseName,
      userName: stored.userName,
      ...(stored.schema !== undefined && stored.schema !== '' ? { schema: stored.schema } : {}),
      ...(ssl?.mode ? { sslMode: ssl.mode } : {}),
      hostAttributes: { metadata, internal: false },
    };
    return { ...resolvedConnection(descriptor, secrets, false), productName: stored.productName ?? '' };
  }
}
