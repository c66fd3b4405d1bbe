import type { KeyRing, TenantMongo, TenantPool } from '@fetcher/platform';
import type { ConnectionResolver, ResolvedConnection } from '../../ports/connection-resolver.port';
import type { TenantScope } from '../../tenancy/tenant-scope';
import { MongoConnectionResolver } from '../mongo/connection-resolver.mongo';

/**
 * Stored connections of the tenant in scope, from the `connection` collection of its own database.
 * The operator's `DATASOURCE_*` internal datasources are a single-tenant setting and are not offered
 * to tenants.
 */
export class TenantConnectionResolver implements ConnectionResolver {
  constructor(
    private readonly scope: TenantScope,
    private readonly mongo: TenantPool<TenantMongo>,
    private readonly ring: KeyRing,
  ) {}

  async resolve(names: readonly string[]): Promise<ResolvedConnection[]> {
    const tenantId = this.scope.require();
    return this.mongo.use(tenantId, (mongo) => new MongoConnectionResolver(mongo.db, this.ring, []).resolve(names));
  }
}
