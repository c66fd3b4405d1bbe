import { CONNECTION_COLLECTION, decodeConnection } from '@fetcher/contracts';
import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';
import type { KeyRing } from '@fetcher/platform';
import type { Db, Document } from 'mongodb';
import type { InternalDatasource } from '../../config/worker.config';
import { resolvedConnection, resolvedInternal } from '../../jobs/resolved-connections';
import type { ConnectionResolver, ResolvedConnection } from '../../ports/connection-resolver.port';

/**
 * Internal datasources first (a name configured by the operator always wins), then the live stored
 * connections of the `connection` collection, whose password and TLS material are decrypted with the
 * key ring entry named by the record's key version. Plaintext exists only in the returned objects.
 */
export class MongoConnectionResolver implements ConnectionResolver {
  constructor(
    private readonly db: Db,
    private readonly ring: KeyRing,
    private readonly internal: readonly InternalDatasource[],
  ) {}

  async resolve(names: readonly string[]): Promise<ResolvedConnection[]> {
    const resolved: ResolvedConnection[] = [];
    const remaining: string[] = [];
    for (const name of new Set(names)) {
      const internal = this.internal.find((d) => d.configName === name);
      if (internal) resolved.push(resolvedInternal(internal));
      else remaining.push(name);
    }
    if (remaining.length === 0) return resolved;
    const docs = await this.db.collection(CONNECTION_COLLECTION).find({ config_name: { $in: remaining }, deleted_at: null }).toArray();
    for (const doc of docs) resolved.push(this.#fromStored(doc));
    return resolved;
  }

  #fromStored(doc: Document): ResolvedConnection {
    const stored = decodeConnection(doc);
    const reveal = (ciphertext: string | undefined): string | undefined =>
      ciphertext ? this.ring.decryptCredential(ciphertext, stored.keyVersion) : undefined;
    const ssl = stored.ssl;
    const secrets: ConnectionSecrets = {
      password: reveal(stored.passwordEncrypted),
      ssl: {
        // Records from the original service keep plaintext PEM; they are used as they are.
        ca: reveal(ssl?.caEncrypted) ?? ssl?.legacyCa,
        cert: reveal(ssl?.certEncrypted) ?? ssl?.legacyCert,
        key: reveal(ssl?.keyEncrypted) ?? ssl?.legacyKey,
      },
    };
    const base: ConnectionDescriptor = {
      id: stored.id,
      configName: stored.configName,
      type: stored.type,
      host: stored.host,
      port: stored.port,
      databaseName: stored.databaseName,
      userName: stored.userName,
      ...(stored.schema ? { schema: stored.schema } : {}),
      ...(ssl?.mode ? { sslMode: ssl.mode } : {}),
      hostAttributes: { metadata: stringRecord(stored.metadata), internal: false },
    };
    return { ...resolvedConnection(base, secrets, false), productName: stored.productName };
  }
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}
