import type { TenantContext } from '@fetcher/engine';
import { Errors } from '../errors/catalogue';
import type { ConnectionListQuery, ConnectionRepository, StoredConnection } from '../ports/connection-repository.port';

/** Live connections in a map; `failWith` makes every call reject. */
export class InMemoryConnectionRepository implements ConnectionRepository {
  readonly live = new Map<string, StoredConnection>();
  failWith?: Error;

  private check(): Promise<void> {
    return this.failWith ? Promise.reject(this.failWith) : Promise.resolve();
  }

  async insert(_t: TenantContext, c: StoredConnection): Promise<void> {
    await this.check();
    if ([...this.live.values()].some((x) => x.configName === c.configName)) throw Errors.connectionConflict();
    this.live.set(c.id, c);
  }
  async findLiveById(_t: TenantContext, id: string): Promise<StoredConnection | undefined> {
    await this.check();
    return this.live.get(id);
  }
  async findLiveByName(_t: TenantContext, name: string): Promise<StoredConnection | undefined> {
    await this.check();
    return [...this.live.values()].find((c) => c.configName === name);
  }
  async replace(_t: TenantContext, c: StoredConnection): Promise<boolean> {
    await this.check();
    if (!this.live.has(c.id)) return false;
    this.live.set(c.id, c);
    return true;
  }
  async softDelete(_t: TenantContext, id: string): Promise<boolean> {
    await this.check();
    return this.live.delete(id);
  }
  async assignProduct(_t: TenantContext, id: string, product: string, now: Date): Promise<StoredConnection | undefined> {
    await this.check();
    const c = this.live.get(id);
    if (!c || c.productName !== '') return undefined;
    const assigned = { ...c, productName: product, updatedAt: now };
    this.live.set(id, assigned);
    return assigned;
  }
  async list(_t: TenantContext, q: ConnectionListQuery): Promise<{ items: StoredConnection[]; total: number }> {
    await this.check();
    const all = [...this.live.values()];
    return { items: all.slice((q.page - 1) * q.limit, q.page * q.limit), total: all.length };
  }
}
