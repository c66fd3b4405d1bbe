import type { ManagerConfig } from '../../config/manager.config';
import { schemaCacheContract } from '../../testing/schema-cache.contract';
import { RedisSchemaCache } from './schema-cache.redis';

describe(`${RedisSchemaCache.name} without Redis (the standalone service's cache)`, () => {
  describe('the schema cache contract', () => {
    schemaCacheContract(({ clock, ttlSeconds }) => new RedisSchemaCache(null, '', { schemaCache: { ttlSeconds } } as ManagerConfig, clock));
  });
});
