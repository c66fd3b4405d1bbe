import { ACTIVE_HASH_INDEX, CONNECTION_COLLECTION, CONNECTION_INDEXES, createIndexArgs, JOB_COLLECTION, JOB_INDEXES } from '@fetcher/contracts';
import type { Db } from 'mongodb';

/**
 * Creates every index of `connection` and `job` (the Manager's and the Worker's, the unique active-hash one included) in a tenant's
 * database, as whoever provisions tenant databases does: in multi-tenant mode the services create
 * no index themselves. Tests use it on each tenant database.
 */
export async function provisionTenantIndexes(db: Db): Promise<void> {
  for (const index of CONNECTION_INDEXES) await db.collection(CONNECTION_COLLECTION).createIndex(...createIndexArgs(index));
  for (const index of [...JOB_INDEXES, ACTIVE_HASH_INDEX]) await db.collection(JOB_COLLECTION).createIndex(...createIndexArgs(index));
}
