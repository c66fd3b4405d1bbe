/**
 * Connection operations. Every one needs the store, re-checks the tenant and scopes each
 * store call by it. Another tenant's connection is "connection not found", the same text as a
 * missing one, so there is no existence oracle.
 */
import { EngineError, ErrorText } from '../errors';
import type { ConnectionDescriptor, ConnectionPatch, Page, ProtectedCredential, TenantContext } from '../models';
import { requireStore, type EngineContext } from '../engine-context';
import { requireTenant } from '../tenant';
import { isNonBlankString, isPlainObject } from '../support/guards';
import { applyPatch, descriptorFromInput, readConnectionInput, readPatch } from './descriptor';
import type { StoreAccess } from './store-access';
import { randomUUID } from 'node:crypto';

export class ConnectionOperations {
  readonly #context: EngineContext;

  constructor(context: EngineContext) {
    this.#context = context;
  }

  async create(tenantValue: unknown, inputValue: unknown): Promise<ConnectionDescriptor> {
    const { store, tenant } = this.#begin(tenantValue);
    const input = readConnectionInput(inputValue);
    // The existence check comes before any protect call, so a duplicate never costs a KMS round trip.
    if (await store.find(tenant, input.configName)) throw new EngineError('conflict', ErrorText.connectionExists);
    const credential = await this.#protect(tenant, input.hasPassword() ? input.password() : undefined);
    const descriptor = descriptorFromInput(input, randomUUID(), credential?.keyVersion);
    await store.create(tenant, descriptor, credential);
    return descriptor;
  }

  async get(tenantValue: unknown, configName: unknown): Promise<ConnectionDescriptor> {
    const { store, tenant } = this.#begin(tenantValue);
    return this.#find(store, tenant, readConfigName(configName));
  }

  async list(tenantValue: unknown): Promise<ConnectionDescriptor[]> {
    const { store, tenant } = this.#begin(tenantValue);
    return store.list(tenant);
  }

  async getById(tenantValue: unknown, id: unknown): Promise<ConnectionDescriptor> {
    const { store, tenant } = this.#begin(tenantValue);
    return this.#findById(store, tenant, readId(id));
  }

  async listPaged(tenantValue: unknown, query: unknown): Promise<Page<ConnectionDescriptor>> {
    const { store, tenant } = this.#begin(tenantValue);
    if (query !== undefined && query !== null && !isPlainObject(query)) {
      throw new EngineError('validation', ErrorText.invalidListQuery);
    }
    const filter = (query as { filter?: unknown } | undefined | null)?.filter;
    if (filter !== undefined && filter !== null && !isPlainObject(filter)) {
      throw new EngineError('validation', ErrorText.invalidListQuery);
    }
    return store.listPaged(tenant, filter ?? undefined);
  }

  async update(tenantValue: unknown, configName: unknown, patchValue: unknown): Promise<ConnectionDescriptor> {
    const { store, tenant } = this.#begin(tenantValue);
    const name = readConfigName(configName);
    const patch = readPatch(patchValue);
    const current = await this.#find(store, tenant, name);
    await this.#gate(tenant, name);
    return this.#applyAndSave(tenant, current, patch, (descriptor, credential) => store.update(tenant, descriptor, credential));
  }

  async delete(tenantValue: unknown, configName: unknown): Promise<void> {
    const { store, tenant } = this.#begin(tenantValue);
    const name = readConfigName(configName);
    await this.#find(store, tenant, name);
    await this.#gate(tenant, name);
    await store.delete(tenant, name);
  }

  /** No active-execution gate: hosts that address connections by id call checkActiveExecutions themselves. */
  async updateById(tenantValue: unknown, idValue: unknown, patchValue: unknown): Promise<ConnectionDescriptor> {
    const { store, tenant } = this.#begin(tenantValue);
    const id = readId(idValue);
    const patch = readPatch(patchValue);
    const current = await this.#findById(store, tenant, id);
    return this.#applyAndSave(tenant, current, patch, (descriptor, credential) => store.updateById(tenant, id, descriptor, credential));
  }

  async deleteById(tenantValue: unknown, idValue: unknown): Promise<void> {
    const { store, tenant } = this.#begin(tenantValue);
    const id = readId(idValue);
    await this.#findById(store, tenant, id);
    await store.deleteById(tenant, id);
  }

  /** The checker's own error is rethrown unchanged: the host asked its own checker a question. */
  async checkActiveExecutions(tenantValue: unknown, configName: unknown): Promise<boolean> {
    const { tenant } = this.#begin(tenantValue);
    const name = readConfigName(configName);
    const checker = this.#context.activeExecutionChecker;
    if (!checker) return false;
    return (await checker.hasActiveExecutions(tenant, name)) === true;
  }

  authorizeAccess(tenantValue: unknown): Promise<void> {
    return new Promise<void>((resolve) => {
      requireTenant(tenantValue);
      resolve();
    });
  }

  #begin(tenantValue: unknown): { store: StoreAccess; tenant: TenantContext } {
    const store = requireStore(this.#context);
    return { store, tenant: requireTenant(tenantValue) };
  }

  async #find(store: StoreAccess, tenant: TenantContext, configName: string): Promise<ConnectionDescriptor> {
    const found = await store.find(tenant, configName);
    if (!found) throw new EngineError('not_found', ErrorText.connectionNotFound);
    return found;
  }

  async #findById(store: StoreAccess, tenant: TenantContext, id: string): Promise<ConnectionDescriptor> {
    const found = await store.findById(tenant, id);
    if (!found) throw new EngineError('not_found', ErrorText.connectionNotFound);
    return found;
  }

  async #applyAndSave(
    tenant: TenantContext,
    current: ConnectionDescriptor,
    patch: ConnectionPatch,
    save: (descriptor: ConnectionDescriptor, credential?: ProtectedCredential) => Promise<void>,
  ): Promise<ConnectionDescriptor> {
    // Validate the merged descriptor before protecting, so a bad patch never reaches the protector.
    applyPatch(current, patch, undefined);
    const credential = await this.#protect(tenant, patch.password ? patch.password : undefined);
    const updated = applyPatch(current, patch, credential?.keyVersion);
    // No credential: the store keeps the stored secret and its key version.
    await save(updated, credential);
    return updated;
  }

  /** Only with encrypted persistence and a password; without encryption the engine stays secret-free. */
  async #protect(tenant: TenantContext, password: string | undefined): Promise<ProtectedCredential | undefined> {
    const protector = this.#context.credentialProtector;
    if (!this.#context.encryptedPersistence || !protector || password === undefined || password === '') return undefined;
    let result: unknown;
    try {
      result = await protector.protect(tenant, password);
    } catch (error) {
      throw new EngineError('unavailable', ErrorText.protectFailed, error);
    }
    const { ciphertext, keyVersion } = (result ?? {}) as Partial<ProtectedCredential>;
    if (typeof ciphertext !== 'string' || typeof keyVersion !== 'number' || !Number.isSafeInteger(keyVersion) || keyVersion < 0) {
      throw new EngineError('unavailable', ErrorText.protectFailed);
    }
    return { ciphertext, keyVersion };
  }

  /** The active-execution gate of update and delete. The checker's raw error is dropped. */
  async #gate(tenant: TenantContext, configName: string): Promise<void> {
    const checker = this.#context.activeExecutionChecker;
    if (!checker) return;
    let active: unknown;
    try {
      active = await checker.hasActiveExecutions(tenant, configName);
    } catch (error) {
      throw new EngineError('unavailable', ErrorText.activeCheckFailed, error);
    }
    if (active === true) throw new EngineError('conflict', ErrorText.activeExecutions);
  }
}

export function readConfigName(value: unknown): string {
  if (!isNonBlankString(value)) throw new EngineError('validation', ErrorText.invalidConfigName);
  return value;
}

function readId(value: unknown): string {
  if (!isNonBlankString(value)) throw new EngineError('validation', ErrorText.invalidConnectionId);
  return value;
}
