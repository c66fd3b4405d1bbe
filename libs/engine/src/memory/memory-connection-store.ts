/**
 * ConnectionStore in memory: a map keyed by (tenantId, configName), hard deletes, lists
 * sorted by configName. Descriptors are stored and returned as copies, host attributes hidden.
 */
import { EngineError, ErrorText } from '../errors';
import { compareUtf8 } from '../canonical/encode';
import type { ConnectionDescriptor, ListPagedQuery, Page, ProtectedCredential, TenantContext } from '../models';
import type { ConnectionStore } from '../ports';
import { copyDescriptor } from '../connections/descriptor';
import { attempt, tenantKey } from './harness-support';

interface Entry {
  readonly tenantId: string;
  readonly descriptor: ConnectionDescriptor;
  readonly credential?: ProtectedCredential;
}

export class MemoryConnectionStore implements ConnectionStore {
  readonly #entries = new Map<string, Entry>();

  findConnection(tenant: TenantContext, configName: string): Promise<ConnectionDescriptor | undefined> {
    return attempt(() => {
      const found = this.#entries.get(tenantKey(tenant, configName));
      return found ? copy(found.descriptor) : undefined;
    });
  }

  /** A duplicate is a `conflict` (the original harness said validation). */
  create(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void> {
    return attempt(() => {
      const stored = copy(descriptor);
      const key = tenantKey(tenant, stored.configName);
      if (this.#entries.has(key)) throw new EngineError('conflict', ErrorText.connectionExists);
      this.#entries.set(key, entry(tenant, stored, credential));
    });
  }

  /** Without a credential the stored secret and key version stay. */
  update(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void> {
    return attempt(() => {
      const stored = copy(descriptor);
      const key = tenantKey(tenant, stored.configName);
      const current = this.#entries.get(key);
      if (!current) throw new EngineError('not_found', ErrorText.connectionNotFound);
      this.#entries.set(key, merge(tenant, current, stored, credential));
    });
  }

  delete(tenant: TenantContext, configName: string): Promise<void> {
    return attempt(() => void this.#entries.delete(tenantKey(tenant, configName)));
  }

  list(tenant: TenantContext): Promise<readonly ConnectionDescriptor[]> {
    return attempt(() => this.#list(tenant));
  }

  /** An empty id never matches. */
  findById(tenant: TenantContext, id: string): Promise<ConnectionDescriptor | undefined> {
    return attempt(() => {
      const found = this.#byId(tenant, id);
      return found ? copy(found[1].descriptor) : undefined;
    });
  }

  /** May rename: the entry moves to the new configName (a taken name is a conflict). */
  updateById(tenant: TenantContext, id: string, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Promise<void> {
    return attempt(() => {
      const found = this.#byId(tenant, id);
      if (!found) throw new EngineError('not_found', ErrorText.connectionNotFound);
      const [oldKey, current] = found;
      const stored = copy(descriptor);
      const newKey = tenantKey(tenant, stored.configName);
      if (newKey !== oldKey && this.#entries.has(newKey)) throw new EngineError('conflict', ErrorText.connectionExists);
      this.#entries.delete(oldKey);
      this.#entries.set(newKey, merge(tenant, current, stored, credential));
    });
  }

  deleteById(tenant: TenantContext, id: string): Promise<void> {
    return attempt(() => {
      const found = this.#byId(tenant, id);
      if (found) this.#entries.delete(found[0]);
    });
  }

  /** Ignores its parameters and returns everything, like the original harness. */
  listPaged(tenant: TenantContext, _query: ListPagedQuery): Promise<Page<ConnectionDescriptor>> {
    return attempt(() => {
      const items = this.#list(tenant);
      return { items, total: items.length };
    });
  }

  /** What the engine handed the store as the protected secret, for assertions. */
  protectedCredential(tenant: TenantContext, configName: string): ProtectedCredential | undefined {
    return this.#entries.get(tenantKey(tenant, configName))?.credential;
  }

  #list(tenant: TenantContext): ConnectionDescriptor[] {
    return this.#tenantEntries(tenant)
      .map(([, e]) => copy(e.descriptor))
      .sort((a, b) => compareUtf8(a.configName, b.configName));
  }

  #tenantEntries(tenant: TenantContext): [string, Entry][] {
    return [...this.#entries].filter(([, e]) => e.tenantId === tenant.tenantId);
  }

  #byId(tenant: TenantContext, id: string): [string, Entry] | undefined {
    if (typeof id !== 'string' || id === '') return undefined;
    return this.#tenantEntries(tenant).find(([, e]) => e.descriptor.id === id);
  }
}

function entry(tenant: TenantContext, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Entry {
  return credential
    ? { tenantId: tenant.tenantId, descriptor, credential: { ...credential } }
    : { tenantId: tenant.tenantId, descriptor };
}

function merge(tenant: TenantContext, current: Entry, descriptor: ConnectionDescriptor, credential?: ProtectedCredential): Entry {
  if (credential) return entry(tenant, descriptor, credential);
  // No new credential: keep the stored one and the key version that belongs to it.
  const keyVersion = current.descriptor.keyVersion;
  const kept = keyVersion === undefined ? descriptor : copy({ ...descriptor, keyVersion, hostAttributes: descriptor.hostAttributes });
  return entry(tenant, kept, current.credential);
}

function copy(descriptor: ConnectionDescriptor): ConnectionDescriptor {
  const copied = copyDescriptor(descriptor);
  if (!copied) throw new EngineError('validation', ErrorText.invalidInput);
  return copied;
}
