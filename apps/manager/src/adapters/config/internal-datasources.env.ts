import { type ConnectionDescriptor, type TenantContext } from '@fetcher/engine';
import { v5 as uuidv5 } from 'uuid';
import type { InternalDatasourceConfig } from '../../config/manager.config';
import type { InternalDatasource, InternalDatasources } from '../../ports/internal-datasources.port';

/** The namespace of internal-datasource ids; ids must match what other deployments compute. */
export const INTERNAL_DATASOURCE_NAMESPACE = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';

/** Single-tenant: the `DATASOURCE_<X>_*` groups read at startup. The visible tenant id is `""`. */
export class EnvInternalDatasources implements InternalDatasources {
  private readonly datasources: readonly InternalDatasource[];

  constructor(configs: readonly InternalDatasourceConfig[]) {
    this.datasources = configs.map((c) => toInternal(c));
  }

  list(_tenant: TenantContext): Promise<readonly InternalDatasource[]> {
    return Promise.resolve(this.datasources);
  }
}

/** A datasource ready to list and dial; its id is UUIDv5 of `tenantId/configName` (tenant `""` in single-tenant mode). */
export function toInternal(c: InternalDatasourceConfig, tenantId = ''): InternalDatasource {
  const descriptor: ConnectionDescriptor = {
    configName: c.configName,
    type: c.type,
    host: c.host,
    port: c.port,
    databaseName: c.databaseName,
    userName: c.userName,
    ...(c.sslMode ? { sslMode: c.sslMode } : {}),
  };
  const ssl = c.ssl ? { ssl: { ...c.ssl } } : {};
  Object.defineProperty(descriptor, 'hostAttributes', { value: Object.freeze({ metadata: c.metadata, internal: true }), enumerable: false });
  Object.defineProperty(descriptor, 'secrets', { value: Object.freeze({ ...(c.password ? { password: c.password } : {}), ...ssl }), enumerable: false });
  return Object.freeze({
    id: uuidv5(`${tenantId}/${c.configName}`, INTERNAL_DATASOURCE_NAMESPACE),
    configName: c.configName,
    type: c.type,
    host: c.host,
    port: c.port,
    databaseName: c.databaseName,
    userName: c.userName,
    sslMode: c.sslMode ?? '',
    metadata: c.metadata,
    descriptor,
  });
}
