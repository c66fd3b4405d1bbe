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

/** An operator-configured PostgreSQL datasource (`pg-internal`, trust authentication) for job requests. */
export const INTERNAL_PG: Readonly<Record<string, string>> = {
  DATASOURCE_PGI_CONFIG_NAME: 'pg-internal',
  DATASOURCE_PGI_TYPE: 'POSTGRESQL',
  DATASOURCE_PGI_HOST: '127.0.0.1',
  DATASOURCE_PGI_PORT: '5432',
  DATASOURCE_PGI_DATABASE: 'test',
  DATASOURCE_PGI_USER: 'postgres',
};
