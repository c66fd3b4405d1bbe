import { randomUUID } from 'node:crypto';
import type { StoredConnection } from '@fetcher/contracts';
import type { KeyRing } from '@fetcher/platform';

/** A live connection as the Manager stores it (password encrypted under the ring's current key), for the embedded resolver. */
export function storedConnection(ring: KeyRing, configName: string, options: { type: string; productName: string; password?: string }): StoredConnection {
  const encrypted = options.password !== undefined ? ring.encryptCredential(options.password) : { ciphertext: '', keyVersion: ring.currentVersion };
  return {
    id: randomUUID(),
    productName: options.productName,
    configName,
    type: options.type,
    host: 'h',
    port: 1,
    databaseName: configName,
    userName: 'u',
    passwordEncrypted: encrypted.ciphertext,
    keyVersion: encrypted.keyVersion,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:00:00Z'),
  };
}
