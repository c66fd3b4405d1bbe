import { v7 as uuidv7 } from 'uuid';
import type { KeyRing } from '@fetcher/platform';
import type { MemoryConnectionRepository, StoredConnection } from '@fetcher/manager';
import type { DemoDatabaseAddress } from './demo-database';
import { DEMO_SCHEMA } from './demo-seed';

export const DEMO_CONFIG_NAME = 'demo';
export const DEMO_PRODUCT = 'demo';
/** PGlite accepts any password; the connection still stores one, encrypted like every other. */
const DEMO_PASSWORD = 'demo';

/**
 * Registers the demo database as the stored connection `demo` of the product `demo`, or points the
 * existing one at this run's port (the database listens on a port chosen at start). A connection
 * named `demo` that the user created elsewhere is left alone.
 */
export async function registerDemoConnection(
  connections: MemoryConnectionRepository,
  ring: KeyRing,
  address: DemoDatabaseAddress,
  now: Date,
): Promise<'created' | 'updated' | 'kept'> {
  const tenant = { tenantId: 'default' };
  const { ciphertext, keyVersion } = ring.encryptCredential(DEMO_PASSWORD);
  // The schema makes GET /schema list the shop tables (its scope is the connection's schema).
  const fields = { schema: DEMO_SCHEMA, host: address.host, port: address.port, databaseName: address.database, userName: address.user, passwordEncrypted: ciphertext, keyVersion };
  const existing = await connections.findLiveByName(tenant, DEMO_CONFIG_NAME);
  if (!existing) {
    const created: StoredConnection = {
      id: uuidv7(),
      productName: DEMO_PRODUCT,
      configName: DEMO_CONFIG_NAME,
      type: 'POSTGRESQL',
      ...fields,
      ssl: { mode: 'disable' },
      metadata: { description: 'the standalone demo database (PGlite)' },
      createdAt: now,
      updatedAt: now,
    };
    await connections.insert(tenant, created);
    return 'created';
  }
  if (existing.metadata?.description !== 'the standalone demo database (PGlite)') return 'kept';
  if (existing.port === address.port && existing.host === address.host && existing.schema === DEMO_SCHEMA) return 'kept';
  await connections.replace(tenant, { ...existing, ...fields, updatedAt: now });
  return 'updated';
}
