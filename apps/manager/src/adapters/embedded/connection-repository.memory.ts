import type { TenantContext } from '@fetcher/engine';
import { RecordDirectory, type RecordSink, volatileRecords } from '@fetcher/platform';
import { Errors } from '../../errors/catalogue';
import type { ConnectionListFilter, ConnectionListQuery, ConnectionRepository, StoredConnection } from '../../ports/connection-repository.port';

/** A stored connection plus its soft-delete stamp, as the file under `<dataDir>/connections/` holds it. */
export interface ConnectionRecord extends StoredConnection {
  readonly deletedAt: Date | null;
}

/**
 * The Manager's embedded connection repository: in memory, and when opened on a directory each
 * change is written to `<dir>/<id>.json` before the call resolves. Secrets stay encrypted exactly as the
 * Manager hands them over. Checks and changes run synchronously, so the config-name rule holds
 * under concurrent requests as the unique index makes it hold in MongoDB.
 */
export class MemoryConnectionRepository implements ConnectionRepository {
  private constructor(
    private readonly records: Map<string, ConnectionRecord>,
    private readonly directory: RecordSink<ConnectionRecord>,
  ) {}

  static async open(dir: string): Promise<MemoryConnectionRepository> {
    const { directory, records } = await RecordDirectory.open<ConnectionRecord>(dir);
    return new MemoryConnectionRepository(records, directory);
  }

  /** A repository that writes nothing down: the specs' connection store, with the same rules. */
  static inMemory(): MemoryConnectionRepository {
    return new MemoryConnectionRepository(new Map(), volatileRecords<ConnectionRecord>());
  }

  /** Every live connection, for the Worker's resolver and the active-job checks. */
  live(): StoredConnection[] {
    return [...this.records.values()].filter((r) => r.deletedAt === null).map(strip);
  }

  async insert(_tenant: TenantContext, connection: StoredConnection): Promise<void> {
    if (this.#liveByName(connection.configName)) throw Errors.connectionConflict();
    this.records.set(connection.id, { ...structuredClone(connection), deletedAt: null });
    await this.#persist(connection.id);
  }

  findLiveById(_tenant: TenantContext, id: string): Promise<StoredConnection | undefined> {
    const record = this.records.get(id);
    return Promise.resolve(record && record.deletedAt === null ? strip(record) : undefined);
  }

  findLiveByName(_tenant: TenantContext, configName: string): Promise<StoredConnection | undefined> {
    const record = this.#liveByName(configName);
    return Promise.resolve(record ? strip(record) : undefined);
  }

  async replace(_tenant: TenantContext, connection: StoredConnection): Promise<boolean> {
    const record = this.records.get(connection.id);
    if (!record || record.deletedAt !== null) return false;
    // A rename onto another live connection's name is refused, as the unique index refuses it in MongoDB.
    const holder = this.#liveByName(connection.configName);
    if (holder && holder.id !== connection.id) throw Errors.connectionConflict();
    this.records.set(connection.id, { ...structuredClone(connection), deletedAt: null });
    await this.#persist(connection.id);
    return true;
  }

  async softDelete(_tenant: TenantContext, id: string, now: Date): Promise<boolean> {
    const record = this.records.get(id);
    if (!record || record.deletedAt !== null) return false;
    this.records.set(id, { ...record, deletedAt: now, updatedAt: now });
    await this.#persist(id);
    return true;
  }

  async assignProduct(_tenant: TenantContext, id: string, productName: string, now: Date): Promise<StoredConnection | undefined> {
    const record = this.records.get(id);
    if (!record || record.deletedAt !== null || record.productName !== '') return undefined;
    const updated = { ...record, productName, updatedAt: now };
    this.records.set(id, updated);
    await this.#persist(id);
    return strip(updated);
  }

  list(_tenant: TenantContext, query: ConnectionListQuery): Promise<{ items: StoredConnection[]; total: number }> {
    const direction = query.sortOrder === 'asc' ? 1 : -1;
    const matching = [...this.records.values()]
      .filter((r) => r.deletedAt === null && matches(r, query.filter))
      .sort((a, b) => direction * (a.createdAt.getTime() - b.createdAt.getTime()) || direction * a.id.localeCompare(b.id));
    const start = (query.page - 1) * query.limit;
    return Promise.resolve({ items: matching.slice(start, start + query.limit).map(strip), total: matching.length });
  }

  flush(): Promise<void> {
    return this.directory.flush();
  }

  #liveByName(configName: string): ConnectionRecord | undefined {
    return [...this.records.values()].find((r) => r.deletedAt === null && r.configName === configName);
  }

  #persist(id: string): Promise<void> {
    return this.directory.save(id, () => this.records.get(id));
  }
}

function matches(record: ConnectionRecord, filter: ConnectionListFilter): boolean {
  if (filter.unassignedOnly && record.productName !== '') return false;
  if (filter.productName !== undefined && record.productName !== filter.productName) return false;
  if (filter.type !== undefined && record.type !== filter.type) return false;
  if (filter.host !== undefined && record.host !== filter.host) return false;
  if (filter.databaseName !== undefined && record.databaseName !== filter.databaseName) return false;
  if (filter.createdFrom !== undefined && record.createdAt.getTime() < filter.createdFrom.getTime()) return false;
  if (filter.createdBefore !== undefined && record.createdAt.getTime() >= filter.createdBefore.getTime()) return false;
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    // Own keys only: `constructor` must not find Object's own constructor.
    if (!record.metadata || !Object.hasOwn(record.metadata, key) || record.metadata[key] !== value) return false;
  }
  return true;
}

function strip(record: ConnectionRecord): StoredConnection {
  const { deletedAt: _deleted, ...connection } = record;
  return structuredClone(connection);
}
