import type { Document } from 'mongodb';
import { binaryToUuid, uuidToBinary } from '../ids/uuid-binary';

/** Written by the Manager, read by the Worker to run jobs. */
export const CONNECTION_COLLECTION = 'connection';

/** The TLS part of a stored connection (`ssl: {mode, ca_encrypted, cert_encrypted, key_encrypted}`). */
export interface StoredSsl {
  readonly mode: string;
  readonly caEncrypted?: string;
  readonly certEncrypted?: string;
  readonly keyEncrypted?: string;
  /** Plaintext PEM (`ca`, `cert`, `key`) from the original service: readable until the next update encrypts it. */
  readonly legacyCa?: string;
  readonly legacyCert?: string;
  readonly legacyKey?: string;
}

/** A stored (non-internal) connection. Secrets stay encrypted here, under the key ring version `keyVersion`. */
export interface StoredConnection {
  readonly id: string;
  readonly productName: string;
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly schema?: string;
  readonly userName: string;
  readonly passwordEncrypted: string;
  readonly keyVersion: string;
  readonly ssl?: StoredSsl;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * The document of a live connection (snake_case, as the original service wrote it). `schema`,
 * `ssl` and `metadata` are left out when the connection has none, so a replace unsets them.
 */
export function encodeConnection(c: StoredConnection): Document {
  const doc: Document = {
    _id: uuidToBinary(c.id),
    product_name: c.productName,
    config_name: c.configName,
    type: c.type,
    host: c.host,
    port: c.port,
    database_name: c.databaseName,
    username: c.userName,
    password_encrypted: c.passwordEncrypted,
    encryption_key_version: c.keyVersion,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    deleted_at: null,
  };
  if (c.schema !== undefined) doc.schema = c.schema;
  if (c.ssl) {
    const ssl: Document = { mode: c.ssl.mode };
    if (c.ssl.caEncrypted) ssl.ca_encrypted = c.ssl.caEncrypted;
    if (c.ssl.certEncrypted) ssl.cert_encrypted = c.ssl.certEncrypted;
    if (c.ssl.keyEncrypted) ssl.key_encrypted = c.ssl.keyEncrypted;
    doc.ssl = ssl;
  }
  if (c.metadata && Object.keys(c.metadata).length > 0) doc.metadata = c.metadata;
  return doc;
}

/** The fields `encodeConnection` leaves out when empty: a replace unsets those it did not write. */
export const OPTIONAL_CONNECTION_FIELDS = ['schema', 'ssl', 'metadata'] as const;

export function decodeConnection(doc: Document): StoredConnection {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const ssl = doc.ssl && typeof doc.ssl === 'object' ? (doc.ssl as Document) : undefined;
  const metadata = doc.metadata && typeof doc.metadata === 'object' && !Array.isArray(doc.metadata) ? (doc.metadata as Document) : undefined;
  const storedSsl: StoredSsl | undefined = ssl
    ? {
        mode: str(ssl.mode),
        ...(ssl.ca_encrypted ? { caEncrypted: str(ssl.ca_encrypted) } : {}),
        ...(ssl.cert_encrypted ? { certEncrypted: str(ssl.cert_encrypted) } : {}),
        ...(ssl.key_encrypted ? { keyEncrypted: str(ssl.key_encrypted) } : {}),
        ...(ssl.ca ? { legacyCa: str(ssl.ca) } : {}),
        ...(ssl.cert ? { legacyCert: str(ssl.cert) } : {}),
        ...(ssl.key ? { legacyKey: str(ssl.key) } : {}),
      }
    : undefined;
  return {
    id: binaryToUuid(doc._id),
    productName: str(doc.product_name),
    configName: str(doc.config_name),
    type: str(doc.type),
    host: str(doc.host),
    port: typeof doc.port === 'number' ? doc.port : Number(doc.port ?? 0),
    databaseName: str(doc.database_name),
    ...(typeof doc.schema === 'string' ? { schema: doc.schema } : {}),
    userName: str(doc.username),
    passwordEncrypted: str(doc.password_encrypted),
    keyVersion: str(doc.encryption_key_version),
    ...(storedSsl ? { ssl: storedSsl } : {}),
    ...(metadata ? { metadata } : {}),
    createdAt: doc.created_at instanceof Date ? doc.created_at : new Date(0),
    updatedAt: doc.updated_at instanceof Date ? doc.updated_at : new Date(0),
  };
}
