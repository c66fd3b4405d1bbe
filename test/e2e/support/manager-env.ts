import { randomBytes, randomUUID } from 'node:crypto';

/**
 * The environment of a built Manager under test: its own database on the given MongoDB, a fresh
 * key, loopback datasources allowed, a one-second drain so SIGTERM ends it quickly, quiet logs.
 */
export function managerEnv(mongoUri: string, port: number, overrides: Record<string, string> = {}): Record<string, string> {
  const url = new URL(mongoUri);
  return {
    ENV_NAME: 'test',
    LOG_LEVEL: 'warn',
    SERVER_ADDRESS: `127.0.0.1:${port}`,
    APP_ENC_KEY: randomBytes(32).toString('base64'),
    MONGO_HOST: url.hostname,
    MONGO_PORT: url.port,
    MONGO_NAME: `e2e_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
    RABBITMQ_FETCHER_WORK_QUEUE: `fetcher.e2e.${randomUUID()}`,
    HOST_SAFETY_ALLOWLIST: '127.0.0.1/32,::1/128,localhost',
    READYZ_DRAIN_DELAY_SEC: '-1',
    ...overrides,
  };
}
