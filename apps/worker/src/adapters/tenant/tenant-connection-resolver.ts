import type { DatabaseConfig, KeyRing, TenantConfig, TenantMongo, TenantPool } from '@fetcher/platform';
import { TenantManagerError } from '@fetcher/platform';
import type { InternalDatasource } from '../../config/worker.config';
import type { ConnectionResolver, ResolvedConnection } from '../../ports/connection-resolver.port';
import type { TenantScope } from '../../tenancy/tenant-scope';
import { MongoConnectionResolver } from '../mongo/connection-resolver.mongo';

/** The tenant-manager service that holds a tenant's internal datasources, and their config names by module. */
export const LEDGER_SERVICE = 'ledger';
export const LEDGER_DATASOURCES: Readonly<Record<string, string>> = {
  midaz_onboarding: 'onboarding',
  midaz_transaction: 'transaction',
  plugin_crm: 'crm',
};

/**
 * Connections of the tenant in scope. Internal datasources (`midaz_onboarding`, `midaz_transaction`,
 * `plugin_crm`) come from the tenant's `ledger` config (`databases.<module>`, PostgreSQL preferred,
 * else MongoDB), with plaintext credentials and exempt from host safety, as the operator's internal
 * datasources are in single-tenant mode; the operator's `DATASOURCE_*` settings are never offered to
 * tenants. Every other name is a stored connection of the `connection` collection in the tenant's
 * own database. A tenant without a `ledger` association has no internal datasources; a tenant-manager
 * that cannot answer fails the resolution (the job is retried).
 */
export class TenantConnectionResolver implements ConnectionResolver {
  constructor(
    private readonly scope: TenantScope,
    private readonly mongo: TenantPool<TenantMongo>,
    private readonly ring: KeyRing,
    private readonly ledgerConfig: (tenantId: string) => Promise<TenantConfig>,
  ) {}

  async resolve(names: readonly string[]): Promise<ResolvedConnection[]> {
    const tenantId = this.scope.require();
    const internal = await this.#internal(tenantId, names);
    return this.mongo.use(tenantId, (mongo) => new MongoConnectionResolver(mongo.db, this.ring, internal).resolve(names));
  }

  async #internal(tenantId: string, names: readonly string[]): Promise<InternalDatasource[]> {
    const wanted = names.filter((name) => Object.hasOwn(LEDGER_DATASOURCES, name));
    if (wanted.length === 0) return [];
    let config: TenantConfig;
    try {
      config = await this.ledgerConfig(tenantId);
    } catch (error) {
      // Not associated with the ledger (or not allowed to be): the names are simply not internal.
      if (error instanceof TenantManagerError && (error.category === 'not_found' || error.category === 'forbidden')) return [];
      throw error;
    }
    return wanted.flatMap((name) => {
      const found = ledgerDatasource(name, config.databases?.[LEDGER_DATASOURCES[name]]);
      return found ? [found] : [];
    });
  }
}

/** One module of the ledger config as an internal datasource; undefined when it has neither database. */
export function ledgerDatasource(configName: string, database: DatabaseConfig | undefined): InternalDatasource | undefined {
  const pg = database?.postgresql;
  if (pg?.host && pg.port && pg.database) {
    return {
      configName, type: 'POSTGRESQL', host: pg.host, port: pg.port, databaseName: pg.database, userName: pg.username ?? '',
      ...(pg.password ? { password: pg.password } : {}),
      ...(pg.sslmode ? { sslMode: pg.sslmode } : {}),
      metadata: {},
    };
  }
  const mongo = database?.mongodb;
  if (mongo?.host && mongo.port && mongo.database) {
    return {
      configName, type: 'MONGODB', host: mongo.host, port: mongo.port, databaseName: mongo.database, userName: mongo.username ?? '',
      ...(mongo.password ? { password: mongo.password } : {}),
      metadata: {},
    };
  }
  return undefined;
}
