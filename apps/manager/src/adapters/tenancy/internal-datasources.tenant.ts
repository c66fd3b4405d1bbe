import type { TenantContext } from '@fetcher/engine';
import { type MongoDBConfig, type PostgreSQLConfig, type TenantConfig, TenantManagerError, type TenantManagerClient } from '@fetcher/platform';
import type { InternalDatasourceConfig } from '../../config/manager.config';
import type { InternalDatasource, InternalDatasources } from '../../ports/internal-datasources.port';
import { toInternal } from '../config/internal-datasources.env';

/** The tenant-manager service whose modules are the internal datasources. */
export const LEDGER_SERVICE = 'ledger';

/** The fixed registry: config name, the ledger module that holds it, and its type. */
export const LEDGER_REGISTRY: readonly { readonly configName: string; readonly module: string; readonly type: 'POSTGRESQL' | 'MONGODB' }[] = Object.freeze([
  { configName: 'midaz_onboarding', module: 'onboarding', type: 'POSTGRESQL' },
  { configName: 'midaz_transaction', module: 'transaction', type: 'POSTGRESQL' },
  { configName: 'plugin_crm', module: 'crm', type: 'MONGODB' },
]);

/**
 * Multi-tenant mode's internal datasources: read per request from the tenant's `ledger` config (the
 * tenant-manager client caches it), for the fixed registry above. Best-effort: a module that is
 * missing or unusable is skipped; a tenant without a `ledger` association (not found, access denied)
 * has none. Any other failure rejects, and lists then show stored connections only. Ids are UUIDv5
 * of `tenantId/configName`, so the same name has a different id in each tenant.
 */
export class TenantInternalDatasources implements InternalDatasources {
  constructor(private readonly client: TenantManagerClient) {}

  async list(tenant: TenantContext): Promise<readonly InternalDatasource[]> {
    let config: TenantConfig;
    try {
      config = await this.client.getTenantConfig(tenant.tenantId, LEDGER_SERVICE);
    } catch (error) {
      if (error instanceof TenantManagerError && (error.reason === 'tenant_not_found' || error.reason === 'access_denied')) return [];
      throw error;
    }
    return ledgerDatasources(config).map((settings) => toInternal(settings, tenant.tenantId));
  }
}

/** The registry's datasources a ledger config provides (PostgreSQL preferred, MongoDB when a module has only that). */
export function ledgerDatasources(config: TenantConfig): InternalDatasourceConfig[] {
  const out: InternalDatasourceConfig[] = [];
  for (const entry of LEDGER_REGISTRY) {
    const database = config.databases?.[entry.module];
    const settings = database?.postgresql
      ? fromPostgres(entry.configName, database.postgresql)
      : database?.mongodb ? fromMongo(entry.configName, database.mongodb) : undefined;
    if (settings) out.push(settings);
  }
  return out;
}

function fromPostgres(configName: string, pg: PostgreSQLConfig): InternalDatasourceConfig | undefined {
  if (!pg.host || !pg.port || !pg.database) return undefined;
  return {
    configName, type: 'POSTGRESQL', host: pg.host, port: pg.port, databaseName: pg.database, userName: pg.username ?? '',
    ...(pg.password ? { password: pg.password } : {}),
    ...(pg.sslmode ? { sslMode: pg.sslmode } : {}),
    metadata: {},
  };
}

/**
 * Host and port come from the fields; a `uri` only contributes its TLS, `directConnection` and
 * `authSource` options (as the original does, so a config with only a `uri` has no host and is skipped).
 */
function fromMongo(configName: string, mongo: MongoDBConfig): InternalDatasourceConfig | undefined {
  if (!mongo.host || !mongo.port || !mongo.database) return undefined;
  let params = new URLSearchParams();
  if (mongo.uri) {
    try {
      params = new URL(mongo.uri).searchParams;
    } catch {
      return undefined;
    }
  }
  const tls = mongo.tls === true || /^true$/i.test(params.get('tls') ?? params.get('ssl') ?? '');
  const insecure = mongo.tlsSkipVerify === true || /^true$/i.test(params.get('tlsInsecure') ?? '');
  const authSource = mongo.authSource ?? params.get('authSource') ?? undefined;
  const direct = mongo.directConnection === true || /^true$/i.test(params.get('directConnection') ?? '');
  return {
    configName, type: 'MONGODB', host: mongo.host, port: mongo.port, databaseName: mongo.database, userName: mongo.username ?? '',
    ...(mongo.password ? { password: mongo.password } : {}),
    ...(insecure ? { sslMode: 'insecure' } : tls ? { sslMode: 'enable' } : {}),
    metadata: { ...(authSource ? { authSource } : {}), ...(direct ? { directConnection: 'true' } : {}) },
  };
}
