import { randomBytes, randomUUID } from 'node:crypto';

/** A fresh 32-byte master key in the form APP_ENC_KEY takes. */
export function aMasterKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * The environment of a Manager under test: its own database on the given MongoDB, real Redis on
 * loopback with a unique database-independent key space, and loopback datasources allowed.
 */
export function managerTestEnv(mongoUri: string, overrides: Record<string, string> = {}): Record<string, string> {
  const url = new URL(mongoUri);
  return {
    ENV_NAME: 'test',
    LOG_LEVEL: 'silent',
    APP_ENC_KEY: aMasterKey(),
    MONGO_HOST: url.hostname,
    MONGO_PORT: url.port,
    MONGO_NAME: `mgr_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
    RABBITMQ_HOST: '127.0.0.1',
    RABBITMQ_DEFAULT_USER: 'guest',
    RABBITMQ_DEFAULT_PASS: 'guest',
    RABBITMQ_FETCHER_WORK_QUEUE: `fetcher.test.${randomUUID()}`,
    HOST_SAFETY_ALLOWLIST: '127.0.0.1/32,::1/128,localhost',
    ...overrides,
  };
}
