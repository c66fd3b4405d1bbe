import { type ConnectionDescriptor, type ConnectionStore, EngineError, type Page, type TenantContext } from '@fetcher/engine';
import type { ConnectionDirectory } from '../../connections/connection-directory';

/**
 * The engine's view of connections: read-only. The Manager writes connections through its own
 * repository (products, metadata, SSL material and soft delete are richer than the engine's
 * descriptor), and the engine reads them here to test, discover and validate.
 */
export class DirectoryConnectionStore implements ConnectionStore {
  constructor(private readonly directory: ConnectionDirectory) {}

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

  async listPaged(tenant: TenantContext): Promise<Page<ConnectionDescriptor>> {
    const items = await this.list(tenant);
    return { items, total: items.length };
  }

  create(): Promise<void> {
    return readOnly();
  }
  update(): Promise<void> {
    return readOnly();
  }
  delete(): Promise<void> {
    return readOnly();
  }
  updateById(): Promise<void> {
    return readOnly();
  }
  deleteById(): Promise<void> {
    return readOnly();
  }
}

function readOnly(): Promise<never> {
  return Promise.reject(new EngineError('unavailable', 'connection store is read-only for the engine'));
}
