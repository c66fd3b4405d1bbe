/**
 * Calls into the host's ConnectionStore. Its own EngineErrors pass through (a duplicate create is
 * a `conflict`); anything else is a store failure with a fixed text, because a database driver's
 * message may quote a DSN. Results are checked copies.
 */
import { EngineError, ErrorText } from '../errors';
import type { ConnectionDescriptor, Page, ProtectedCredential, TenantContext } from '../models';
import type { ConnectionStore } from '../ports';
import { copyDescriptor } from './descriptor';

export class StoreAccess {
  readonly #store: ConnectionStore;

  constructor(store: ConnectionStore) {
    this.#store = store;
  }

  async find(tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined> {
    const found = await this.#call(() => this.#store.findConnection(tenant, configName));
    return found === undefined || found === null ? undefined : checked(found);
  }

  async findById(tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined> {
    const found = await this.#call(() => this.#store.findById(tenant, id));
    return found === undefined || found === null ? undefined : checked(found);
  }

  async list(tenant: TenantContext): Promise<ConnectionDescriptor[]> {
    const items = await this.#call(() => this.#store.list(tenant));
    if (!Array.isArray(items)) throw storeFailed();
    return items.map(checked);
  }

  async listPaged(tenant: TenantContext, filter: Readonly<Record<string, unknown>> | undefined): Promise<Page<ConnectionDescriptor>> {
    const page = await this.#call(() => this.#store.listPaged(tenant, filter === undefined ? {} : { filter }));
    if (typeof page !== 'object' || page === null || !Array.isArray(page.items) || typeof page.total !== 'number') {
      throw storeFailed();
    }
    return { items: page.items.map(checked), total: page.total };
  }

  create(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void> {
    return this.#call(() => this.#store.create(tenant, descriptor, credential));
  }

  update(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void> {
    return this.#call(() => this.#store.update(tenant, descriptor, credential));
  }

  updateById(tenant: TenantContext, id: string, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void> {
    return this.#call(() => this.#store.updateById(tenant, id, descriptor, credential));
  }

  delete(tenant: TenantContext, configName: string): Promise<void> {
    return this.#call(() => this.#store.delete(tenant, configName));
  }

  deleteById(tenant: TenantContext, id: string): Promise<void> {
    return this.#call(() => this.#store.deleteById(tenant, id));
  }

  async #call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof EngineError) throw error;
      throw new EngineError('unavailable', ErrorText.storeFailed, error);
    }
  }
}

function checked(value: unknown): ConnectionDescriptor {
  const descriptor = copyDescriptor(value);
  if (!descriptor) throw storeFailed();
  return descriptor;
}

function storeFailed(): EngineError {
  return new EngineError('unavailable', ErrorText.storeFailed);
}
