import { type DynamicModule, Global, Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { RedisSettings } from '../../config/manager.config';

/** The cache and rate-limiter Redis client, or null when REDIS_HOST is unset (memory fallbacks then). */
export const REDIS_CLIENT = Symbol('RedisClient');
/** Prefix of every key this process writes; tests give each run its own. */
export const REDIS_KEY_PREFIX = Symbol('RedisKeyPrefix');

export interface RedisModuleOptions {
  readonly settings?: RedisSettings;
  readonly keyPrefix?: string;
}

/** Builds a client that fails fast while Redis is away, so callers fall back instead of queueing. */
export function createRedisClient(settings: RedisSettings): Redis {
  const client = new Redis({
    host: settings.host,
    port: settings.port,
    db: settings.db,
    ...(settings.password ? { password: settings.password } : {}),
    ...(settings.tls ? { tls: settings.caCert ? { ca: settings.caCert } : {} } : {}),
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1_000,
    connectTimeout: 2_000,
    // Keep trying in the background; callers use their fallbacks meanwhile.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Connection errors are expected while Redis is away; the adapters notice through failed calls.
  client.on('error', () => undefined);
  return client;
}

class RedisLifecycle implements OnModuleDestroy {
  constructor(@Inject(REDIS_CLIENT) private readonly client: Redis | null) {}
  async onModuleDestroy(): Promise<void> {
    if (!this.client) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

/** The module that creates the client owns it: it is closed when the application closes. */
@Global()
@Module({})
export class RedisModule {
  static forRoot(options: RedisModuleOptions): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        { provide: REDIS_CLIENT, useFactory: () => (options.settings ? createRedisClient(options.settings) : null) },
        { provide: REDIS_KEY_PREFIX, useValue: options.keyPrefix ?? '' },
        RedisLifecycle,
      ],
      exports: [REDIS_CLIENT, REDIS_KEY_PREFIX],
    };
  }
}
