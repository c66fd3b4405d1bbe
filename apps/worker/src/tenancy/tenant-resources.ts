import type { OnApplicationShutdown } from '@nestjs/common';
import {
  createTenantAmqpPool, createTenantMongoPool, type TenantAmqp, type TenantConfig, type TenantManagerClient, type TenantMongo, type TenantPool,
} from '@fetcher/platform';

/** The Worker's tenant-manager service name and MongoDB module. */
export const FETCHER_SERVICE = 'fetcher';

export interface TenantResourcesOptions {
  readonly client: TenantManagerClient;
  readonly maxTenants: number;
  readonly idleTimeoutMs: number;
  /** The global `RABBITMQ_TLS`, used for a tenant whose config leaves `tls` out. */
  readonly defaultAmqpTls: boolean;
  /** Told about every config fetched for a pool: a tenant not served yet starts lazily. */
  readonly onConfigLoaded?: (tenantId: string) => void;
  /** The Worker's kept datasource connectors: a removed tenant's are closed with its other resources. */
  readonly datasources?: { evictTenant(tenantId: string): Promise<void> };
  /** Test tuning: the pools' idle sweep (0 = off). */
  readonly sweepIntervalMs?: number;
}

/**
 * What the Worker holds per tenant: the one tenant-manager client, and the pools of tenant MongoDB
 * clients and vhost connections built from its configs. Closed once, at shutdown, after the
 * consumers: the pools first, then the client.
 */
export class TenantResources implements OnApplicationShutdown {
  readonly client: TenantManagerClient;
  readonly mongo: TenantPool<TenantMongo>;
  readonly amqp: TenantPool<TenantAmqp>;
  readonly #datasources: TenantResourcesOptions['datasources'];
  /** `MULTI_TENANT_MAX_TENANT_POOLS`: the soft cap of each pool. */
  readonly maxTenants: number;
  #closed: Promise<void> | undefined;

  constructor(options: TenantResourcesOptions) {
    this.client = options.client;
    this.#datasources = options.datasources;
    this.maxTenants = options.maxTenants;
    const configOf = async (tenantId: string): Promise<TenantConfig> => {
      const config = await this.client.getTenantConfig(tenantId, FETCHER_SERVICE);
      options.onConfigLoaded?.(tenantId);
      return config;
    };
    const common = {
      configOf,
      maxTenants: options.maxTenants,
      idleTimeoutMs: options.idleTimeoutMs,
      ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
    };
    this.mongo = createTenantMongoPool({ ...common, module: FETCHER_SERVICE });
    this.amqp = createTenantAmqpPool({ ...common, defaultTls: options.defaultAmqpTls });
  }

  /** A removed tenant: its kept datasource connectors, its database client, its vhost connection, its cached config. */
  async release(tenantId: string): Promise<void> {
    await this.#datasources?.evictTenant(tenantId);
    await this.mongo.evict(tenantId);
    await this.amqp.evict(tenantId);
    this.client.invalidate(tenantId, FETCHER_SERVICE);
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      await Promise.all([this.mongo.closeAll(), this.amqp.closeAll()]);
      this.client.close();
    })();
    return this.#closed;
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
