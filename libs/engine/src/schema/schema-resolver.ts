/**
 * Schema discovery for one connection: cache-first when asked, otherwise straight to the
 * connector. Cache failures are misses; connector failures have fixed texts.
 */
import { EngineError, ErrorText, keptReason } from '../errors';
import type { ConnectionDescriptor, SchemaSnapshot, TenantContext } from '../models';
import type { ConnectorRegistry, SchemaCache } from '../ports';
import { buildConnector, closeQuietly, resolveFactory } from '../support/connector-access';
import type { Deadline } from '../support/deadline';
import { copySnapshot } from './snapshot';

export class SchemaResolver {
  readonly #registry: ConnectorRegistry;
  readonly #cache: SchemaCache | undefined;

  constructor(registry: ConnectorRegistry, cache: SchemaCache | undefined) {
    this.#registry = registry;
    this.#cache = cache;
  }

  async resolve(tenant: TenantContext, descriptor: ConnectionDescriptor, useCache: boolean, deadline: Deadline): Promise<SchemaSnapshot> {
    const configName = descriptor.configName;
    if (useCache) {
      const cached = await this.#cached(tenant, configName, deadline);
      if (cached) return cached;
    }
    const connector = buildConnector(resolveFactory(this.#registry, descriptor.type), descriptor);
    try {
      let discovered: unknown;
      try {
        discovered = await deadline.race(Promise.resolve(connector.discoverSchema(deadline.signal)));
      } catch (error) {
        if (deadline.signal.aborted) throw deadline.error();
        if (error instanceof EngineError && error.category === 'connect') {
          // Re-made with the fixed text: a connector's own message may quote its DSN.
          throw new EngineError('connect', ErrorText.connectFailed, error, keptReason(error));
        }
        throw new EngineError('unavailable', ErrorText.discoverFailed, error);
      }
      const snapshot = copySnapshot(discovered, configName);
      if (!snapshot) throw new EngineError('unavailable', ErrorText.discoverFailed);
      if (useCache) await this.#put(tenant, snapshot);
      return snapshot;
    } finally {
      await closeQuietly(connector);
    }
  }

  async #cached(tenant: TenantContext, configName: string, deadline: Deadline): Promise<SchemaSnapshot | undefined> {
    if (!this.#cache) return undefined;
    try {
      const hit = await deadline.race(Promise.resolve(this.#cache.getSchema(tenant, configName)));
      return hit === undefined || hit === null ? undefined : copySnapshot(hit, configName);
    } catch {
      if (deadline.signal.aborted) throw deadline.error();
      return undefined; // a read error counts as a miss
    }
  }

  async #put(tenant: TenantContext, snapshot: SchemaSnapshot): Promise<void> {
    try {
      await this.#cache?.putSchema(tenant, snapshot);
    } catch {
      // The cache is an optimisation; a failed write costs a later discovery, nothing more.
    }
  }
}
