import { Inject, Injectable } from '@nestjs/common';
import type { ConnectionDescriptor, ConnectionSecrets, HostAttributes, TenantContext } from '@fetcher/engine';
import { MANAGER_CONFIG, type ManagerConfig } from '../config/manager.config';
import { requestedScope } from '../engine/schema-scope';
import { CONNECTION_REPOSITORY, type ConnectionRepository, type StoredConnection } from '../ports/connection-repository.port';
import type { ConnectionResolver, ResolvedConnection } from '../ports/connection-resolver.port';
import { INTERNAL_DATASOURCES, type InternalDatasource, type InternalDatasources } from '../ports/internal-datasources.port';
import { ConnectionCredentials } from './connection-credentials';

export type FoundConnection = { readonly internal: InternalDatasource } | { readonly stored: StoredConnection };

/**
 * Where names and ids resolve: an internal datasource always wins over a stored connection of the
 * same name (stored connections cannot take such a name anyway). Descriptors come with decrypted
 * secrets (non-enumerable) and the schema scope in force for the current request.
 */
@Injectable()
export class ConnectionDirectory implements ConnectionResolver {
  readonly credentials: ConnectionCredentials;

  constructor(
    @Inject(INTERNAL_DATASOURCES) private readonly internals: InternalDatasources,
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    @Inject(MANAGER_CONFIG) config: ManagerConfig,
  ) {
    this.credentials = new ConnectionCredentials(config.keyRing);
  }

  async resolve(tenant: TenantContext, names: readonly string[]): Promise<ReadonlyMap<string, ResolvedConnection>> {
    const internals = await this.internals.list(tenant);
    const out = new Map<string, ResolvedConnection>();
    for (const name of new Set(names)) {
      const internal = internals.find((i) => i.configName === name);
      if (internal) {
        out.set(name, { configName: name, internal: true, productName: '', descriptor: this.internalDescriptor(internal) });
        continue;
      }
      const stored = await this.repository.findLiveByName(tenant, name);
      if (stored) out.set(name, { configName: name, internal: false, productName: stored.productName, descriptor: this.storedDescriptor(stored) });
    }
    return out;
  }

  /** By id: the UUIDv5 of an internal datasource, else a live stored record. */
  async byId(tenant: TenantContext, id: string): Promise<FoundConnection | undefined> {
    const internal = await this.internalById(tenant, id);
    if (internal) return { internal };
    const stored = await this.repository.findLiveById(tenant, id);
    return stored ? { stored } : undefined;
  }

  async internalById(tenant: TenantContext, id: string): Promise<InternalDatasource | undefined> {
    return (await this.internals.list(tenant)).find((i) => i.id === id);
  }

  async isInternalName(tenant: TenantContext, name: string): Promise<boolean> {
    return (await this.internals.list(tenant)).some((i) => i.configName === name);
  }

  listInternal(tenant: TenantContext): Promise<readonly InternalDatasource[]> {
    return this.internals.list(tenant);
  }

  internalDescriptor(internal: InternalDatasource): ConnectionDescriptor {
    const base = internal.descriptor;
    const scope = requestedScope(internal.configName)?.schemas;
    return describe({ ...base }, { ...(base.hostAttributes ?? {}), ...(scope && scope.length > 0 ? { schemaScope: scope } : {}) }, base.secrets);
  }

  /** Throws CredentialsUnreadableError when the secrets cannot be decrypted. */
  storedDescriptor(stored: StoredConnection): ConnectionDescriptor {
    const metadata = Object.fromEntries(Object.entries(stored.metadata ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const requested = requestedScope(stored.configName);
    const scope = requested ? requested.schemas : stored.schema ? [stored.schema] : undefined;
    const descriptor: ConnectionDescriptor = {
      id: stored.id,
      configName: stored.configName,
      type: stored.type,
      host: stored.host,
      port: stored.port,
      databaseName: stored.databaseName,
      userName: stored.userName,
      ...(stored.schema !== undefined ? { schema: stored.schema } : {}),
      ...(stored.ssl?.mode ? { sslMode: stored.ssl.mode } : {}),
    };
    return describe(descriptor, { metadata, internal: false, ...(scope && scope.length > 0 ? { schemaScope: scope } : {}) }, this.credentials.secretsOf(stored));
  }
}

/** Host attributes and secrets ride as non-enumerable properties: no spread, log or JSON shows them. */
function describe(descriptor: ConnectionDescriptor, attributes: HostAttributes, secrets: ConnectionSecrets | undefined): ConnectionDescriptor {
  Object.defineProperty(descriptor, 'hostAttributes', { value: Object.freeze(attributes), enumerable: false });
  if (secrets) Object.defineProperty(descriptor, 'secrets', { value: secrets, enumerable: false });
  return descriptor;
}
