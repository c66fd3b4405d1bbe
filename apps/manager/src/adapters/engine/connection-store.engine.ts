import { type ConnectionDescriptor, ReadOnlyConnectionStore, type TenantContext } from '@fetcher/engine';
import type { ConnectionDirectory } from '../../connections/connection-directory';

/**
 * The engine's view of connections: read-only. The Manager writes connections through its own
 * repository (products, metadata, SSL material and soft delete are richer than the engine's
 * descriptor), and the engine reads them here to test, discover and validate.
 */
export class DirectoryConnectionStore extends ReadOnlyConnectionStore {
  constructor(private readonly directory: ConnectionDirectory) {
    super('connection store is read-only for the engine');
  }

  async findConnection(tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined> {
    return (await this.directory.resolve(tenant, [configName])).get(configName)?.descriptor;
  }

  async findById(tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined> {
    const found = await this.directory.byId(tenant, id);
    if (!found) return undefined;
    return 'internal' in found ? this.directory.internalDescriptor(found.internal) : this.directory.storedDescriptor(found.stored);
  }

  async list(tenant: TenantContext): Promise<readonly ConnectionDescriptor[]> {
    return (await this.directory.listInternal(tenant)).map((i) => this.directory.internalDescriptor(i));
  }
}
