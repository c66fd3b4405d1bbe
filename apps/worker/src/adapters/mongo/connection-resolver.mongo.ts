import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';
import type { KeyRing } from '@fetcher/platform';
import type { Db, Document } from 'mongodb';
import type { InternalDatasource } from '../../config/internal-datasources';
import { resolvedConnection, resolvedInternal } from '../../jobs/resolved-connections';
import type { ConnectionResolver, ResolvedConnection } from '../../ports/connection-resolver.port';
import { binaryToUuid } from './uuid-binary';

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
    const docs = await this.db.collection('connection').find({ config_name: { $in: remaining }, deleted_at: null }).toArray();
    for (const doc of docs) resolved.push(this.#fromStored(doc));
    return resolved;
  }

  #fromStored(doc: Document): ResolvedConnection {
    const version = String(doc.encryption_key_version ?? '');
    const reveal = (ciphertext: unknown): string | undefined =>
      typeof ciphertext === 'string' && ciphertext !== '' ? this.ring.decryptCredential(ciphertext, version) : undefined;
    const ssl = (doc.ssl ?? {}) as Record<string, unknown>;
    const plain = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
    const secrets: ConnectionSecrets = {
      password: reveal(doc.password_encrypted),
      ssl: {
        // Records from the original service keep plaintext PEM; they are used as they are.
        ca: reveal(ssl.ca_encrypted) ?? plain(ssl.ca),
        cert: reveal(ssl.cert_encrypted) ?? plain(ssl.cert),
        key: reveal(ssl.key_encrypted) ?? plain(ssl.key),
      },
    };
    const metadata = stringRecord(doc.metadata);
    const base: ConnectionDescriptor = {
      id: binaryToUuid(doc._id),
      configName: String(doc.config_name),
      type: String(doc.type),
      host: String(doc.host ?? ''),
      port: Number(doc.port ?? 0),
      databaseName: String(doc.database_name ?? ''),
      userName: String(doc.username ?? ''),
      ...(typeof doc.schema === 'string' && doc.schema !== '' ? { schema: doc.schema } : {}),
      ...(typeof ssl.mode === 'string' && ssl.mode !== '' ? { sslMode: ssl.mode } : {}),
      hostAttributes: { metadata, internal: false },
    };
    return { ...resolvedConnection(base, secrets, false), productName: typeof doc.product_name === 'string' ? doc.product_name : '' };
  }
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}
