import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ColumnInfo, SchemaCache, SchemaSnapshot, TableSchema, TenantContext } from '@fetcher/engine';
import type { Redis } from 'ioredis';
import { tenantKeyPrefix } from './tenant-keys';
import { MANAGER_CONFIG, type ManagerConfig } from '../../config/manager.config';
import { requestedScope } from '../../engine/schema-scope';
import { CLOCK, type Clock } from '../../ports/clock.port';
import type { SchemaCacheInvalidator } from '../../ports/schema-cache-invalidator.port';
import { REDIS_CLIENT, REDIS_KEY_PREFIX } from './redis.module';

/**
 * The stored form: one hash per config name, one field per scope. `columnInfo` and `primaryKey` are
 * additions to the original layout (readers that know only `columns` still read it): job creation
 * checks an incremental request's cursor against the column's type and nullability and its primary key.
 */
interface CachedSchema {
  readonly configName: string;
  readonly scope: string;
  readonly tables: Record<string, CachedTable>;
  readonly cachedAt: string;
  readonly expiresAt: string;
}

interface CachedTable {
  readonly tableName: string;
  readonly columns: Record<string, true>;
  readonly columnInfo?: Record<string, Omit<ColumnInfo, 'name'>>;
  readonly primaryKey?: readonly string[];
}

export const SCHEMA_PROBE_INTERVAL_MS = 10_000;
const PROBE_TIMEOUT_MS = 2_000;

/**
 * The validate-schema cache. Redis when healthy, an in-process map with the same keys and TTL when
 * not; a probe every 10 s moves between them in both directions (also when Redis was down at
 * boot), and the memory layer is cleared when Redis comes back so no stale copy outlives it.
 * Read errors are misses and write errors are ignored: the cache never fails a request.
 */
@Injectable()
export class RedisSchemaCache implements SchemaCache, SchemaCacheInvalidator, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisSchemaCache.name);
  private readonly memory = new Map<string, Map<string, CachedSchema>>();
  private readonly ttlMs: number;
  private readonly tenancy: ManagerConfig['tenancy'] | undefined;
  private redisHealthy: boolean;
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis | null,
    @Inject(REDIS_KEY_PREFIX) private readonly prefix: string,
    @Inject(MANAGER_CONFIG) config: ManagerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.ttlMs = config.schemaCache.ttlSeconds * 1_000;
    this.tenancy = config.tenancy;
    this.redisHealthy = redis !== null;
  }

  get backend(): 'redis' | 'memory' {
    return this.redisHealthy ? 'redis' : 'memory';
  }

  onModuleInit(): void {
    if (!this.redis) return;
    void this.probe();
    this.timer = setInterval(() => void this.probe(), SCHEMA_PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One probe: PING with a 2 s budget. Exposed for tests, which must not wait for the interval. */
  async probe(): Promise<void> {
    if (!this.redis) return;
    let healthy: boolean;
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => {
          timeout = setTimeout(() => reject(new Error('ping timeout')), PROBE_TIMEOUT_MS);
        }),
      ]);
      healthy = true;
    } catch {
      healthy = false;
    } finally {
      clearTimeout(timeout);
    }
    if (healthy === this.redisHealthy) return;
    this.redisHealthy = healthy;
    if (healthy) {
      this.memory.clear();
      this.logger.log('schema cache: Redis healthy again, memory layer cleared');
    } else this.logger.warn('schema cache: Redis unreachable, using the in-process cache');
  }

  async getSchema(tenant: TenantContext, configName: string): Promise<SchemaSnapshot | undefined> {
    const scope = requestedScope(configName);
    if (!scope) return undefined;
    const key = this.key(tenant, configName);
    let entry: CachedSchema | undefined;
    if (this.redisHealthy && this.redis) {
      try {
        const text = await this.redis.hget(key, scope.field);
        entry = text ? (JSON.parse(text) as CachedSchema) : undefined;
      } catch {
        this.markUnhealthy();
        return undefined;
      }
    } else entry = this.memory.get(key)?.get(scope.field);
    if (!entry || Date.parse(entry.expiresAt) <= this.clock.now().getTime()) return undefined;
    return {
      configName,
      tables: Object.values(entry.tables).map(fromCached),
      capturedAt: entry.cachedAt,
    };
  }

  async putSchema(tenant: TenantContext, snapshot: SchemaSnapshot): Promise<void> {
    const scope = requestedScope(snapshot.configName);
    if (!scope) return;
    const now = this.clock.now();
    const entry: CachedSchema = {
      configName: snapshot.configName,
      scope: scope.field,
      tables: Object.fromEntries(snapshot.tables.map((t) => [t.name, toCached(t)])),
      cachedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlMs).toISOString(),
    };
    const key = this.key(tenant, snapshot.configName);
    if (this.redisHealthy && this.redis) {
      try {
        await this.redis.multi().hset(key, scope.field, JSON.stringify(entry)).expire(key, Math.ceil(this.ttlMs / 1_000)).exec();
      } catch {
        this.markUnhealthy();
      }
      return;
    }
    const fields = this.memory.get(key) ?? new Map<string, CachedSchema>();
    fields.set(scope.field, entry);
    this.memory.set(key, fields);
  }

  async invalidate(tenant: TenantContext, configNames: readonly string[]): Promise<void> {
    const keys = [...new Set(configNames)].map((n) => this.key(tenant, n));
    for (const key of keys) this.memory.delete(key);
    if (!this.redis || keys.length === 0) return;
    try {
      await this.redis.del(...keys);
    } catch {
      // The entries expire with their TTL; a failed delete is logged, never a failed request.
      this.logger.warn('schema cache: invalidation in Redis failed');
    }
  }

  /** `fetcher:schema:{configName}`, in multi-tenant mode under the tenant's `tenant:{id}:` (the memory layer uses the same keys). */
  private key(tenant: TenantContext, configName: string): string {
    return `${this.prefix}${tenantKeyPrefix(this.tenancy, tenant)}fetcher:schema:${configName}`;
  }

  private markUnhealthy(): void {
    if (!this.redisHealthy) return;
    this.redisHealthy = false;
    this.logger.warn('schema cache: Redis call failed, using the in-process cache until the probe succeeds');
  }
}

function toCached(table: TableSchema): CachedTable {
  const info = table.columns?.map(({ name, ...facts }) => [name, facts] as const);
  return {
    tableName: table.name,
    columns: Object.fromEntries(table.fields.map((f) => [f, true as const])),
    ...(info && info.length > 0 ? { columnInfo: Object.fromEntries(info) } : {}),
    ...(table.primaryKey ? { primaryKey: [...table.primaryKey] } : {}),
  };
}

/** An entry written without `columnInfo` (by an older version) reads as fields only, as it was written. */
function fromCached(table: CachedTable): TableSchema {
  const fields = Object.keys(table.columns).sort();
  const info = table.columnInfo;
  const columns = info ? fields.filter((f) => Object.hasOwn(info, f)).map((f) => ({ name: f, ...info[f] })) : [];
  return {
    name: table.tableName,
    fields,
    ...(columns.length > 0 ? { columns } : {}),
    ...(Array.isArray(table.primaryKey) ? { primaryKey: table.primaryKey } : {}),
  };
}
