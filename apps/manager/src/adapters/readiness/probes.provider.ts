import type { FactoryProvider } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { mongoProbe, PROBES, type ReadinessProbe, redisProbe, staticProbe } from '@fetcher/platform';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import { MANAGER_CONFIG, type ManagerConfig, mongoSettings } from '../../config/manager.config';
import { REDIS_CLIENT } from '../redis/redis.module';

/** The job publisher's readiness (breaker state, channel), bound by the jobs feature. */
export const RABBITMQ_PROBE = Symbol('RabbitMqProbe');

/** `/readyz` checks of the Manager: mongodb (ping), rabbitmq (publisher state), redis (PING or skipped). */
export const probesProvider: FactoryProvider<ReadinessProbe[]> = {
  provide: PROBES,
  inject: [MANAGER_CONFIG, getConnectionToken(), REDIS_CLIENT, { token: RABBITMQ_PROBE, optional: true }],
  useFactory: (config: ManagerConfig, mongo: Connection, redis: Redis | null, rabbitmq?: ReadinessProbe) => [
    mongoProbe(mongo, { tls: mongoTls(mongoSettings(config).uri) }),
    rabbitmq ?? staticProbe('rabbitmq', { status: 'skipped', reason: 'job publisher not configured' }),
    redisProbe(redis ?? undefined, { skippedReason: 'REDIS_HOST is not set', ...(config.redis ? { tls: config.redis.tls } : {}) }),
  ],
};

function mongoTls(uri: string): boolean {
  return uri.startsWith('mongodb+srv:') || /[?&](tls|ssl)=(true|1)/i.test(uri);
}
