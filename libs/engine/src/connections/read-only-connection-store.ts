import { EngineError } from '../errors';
import type { ConnectionDescriptor, Page, TenantContext } from '../models';
import type { ConnectionStore } from '../ports';

/**
 * The store for a host that writes its connections somewhere else (a service's own repository, the
 * descriptors one job resolved): the engine only reads through it. A subclass supplies the three
 * reads; `listPaged` is the whole list as one page, and every mutation is refused as `validation`
 * with the reason the host gives, so a misuse is a clear error rather than a silent no-op.
 */
export abstract class ReadOnlyConnectionStore implements ConnectionStore {
  protected constructor(private readonly refusal: string) {}

  abstract findConnection(tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined>;
  abstract findById(tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined>;
  abstract list(tenant: TenantContext): Promise<readonly ConnectionDescriptor[]>;

  async listPaged(tenant: TenantContext): Promise<Page<ConnectionDescriptor>> {
    const items = await this.list(tenant);
    return { items, total: items.length };
  }

  create(): Promise<void> {
    return this.#refuse();
  }
  update(): Promise<void> {
    return this.#refuse();
  }
  delete(): Promise<void> {
    return this.#refuse();
  }
  updateById(): Promise<void> {
    return this.#refuse();
  }
  deleteById(): Promise<void> {
    return this.#refuse();
  }

  #refuse(): Promise<never> {
    return Promise.reject(new EngineError('validation', this.refusal));
  }
}
