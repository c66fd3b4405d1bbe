import type { ConnectionDescriptor, TenantContext } from '@fetcher/engine';

/** An operator-configured datasource as the routes show it (never stored, never patched). */
export interface InternalDatasource {
  /** UUIDv5 of `tenantId + "/" + configName` (tenant `""` in single-tenant mode): stable across restarts. */
  readonly id: string;
  readonly configName: string;
  readonly type: string;
  readonly host: string;
  readonly port: number;
  readonly databaseName: string;
  readonly userName: string;
  readonly sslMode: string;
  readonly metadata: Readonly<Record<string, string>>;
  /** Ready to dial: secrets ride on it (non-enumerable), `hostAttributes.internal` is true. */
  readonly descriptor: ConnectionDescriptor;
}

/**
 * The internal datasources of a tenant. Single-tenant mode reads them from the environment once;
 * a failure to resolve them MUST reject (lists then fall back to stored connections only).
 */
export interface InternalDatasources {
  list(tenant: TenantContext): Promise<readonly InternalDatasource[]>;
}
export const INTERNAL_DATASOURCES = Symbol('InternalDatasources');
