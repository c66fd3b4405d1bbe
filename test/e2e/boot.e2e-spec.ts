import { once } from 'node:events';
import { type MongoTestServer, startMongoTestServer } from '@fetcher/mongo-test-server';
import { type AppProcess, freePort, runApp, startApp } from './support/app-process';
import { managerEnv } from './support/manager-env';

// The Worker boots with its full environment (MongoDB, RabbitMQ, object storage) in worker-job.e2e-spec.ts.
describe('the built Manager boots, answers /health and stops on SIGTERM', () => {
  const started: AppProcess[] = [];
  let mongo: MongoTestServer;
  beforeAll(async () => {
    mongo = await startMongoTestServer();
  });
  afterAll(async () => {
    await Promise.all(started.map((app) => app.stop()));
    await mongo?.close();
  });

  it('manager', async () => {
    const port = await freePort();
    const app = await startApp('manager', port, managerEnv(mongo.uri, port, { VERSION: '9.9.9' }));
    started.push(app);
    expect(await (await fetch(`${app.baseUrl}/health`)).json()).toEqual({ status: 'healthy' });
    expect(await (await fetch(`${app.baseUrl}/version`)).json()).toMatchObject({ version: '9.9.9' });
    const readyz = (await (await fetch(`${app.baseUrl}/readyz`)).json()) as { checks: Record<string, { status: string }> };
    expect(readyz.checks.mongodb.status).toBe('up');
    const exit = await app.stop();
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  });

  it('manager refuses a bad SERVER_ADDRESS with a message naming the variable, not its value', async () => {
    const child = runApp('manager', { ...managerEnv(mongo.uri, 1), SERVER_ADDRESS: 'private-host:99999' });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('SERVER_ADDRESS');
    expect(stderr).not.toContain('private-host');
  });

  it('manager starts in multi-tenant mode without a shared database or broker, and its readiness says so', async () => {
    const port = await freePort();
    // Nothing answers at these names: the Manager still starts (tenants are resolved per request), and readiness shows it.
    const app = await startApp('manager', port, {
      ...managerEnv(mongo.uri, port),
      ENV_NAME: 'staging',
      MULTI_TENANT_ENABLED: 'true',
      MULTI_TENANT_URL: 'https://tenant-manager.invalid',
      MULTI_TENANT_SERVICE_API_KEY: 'key',
      MULTI_TENANT_REDIS_HOST: 'events.invalid',
      MULTI_TENANT_JWKS_URL: 'https://auth.invalid/jwks.json',
    }, '/version');
    started.push(app);
    const readyz = (await (await fetch(`${app.baseUrl}/readyz`)).json()) as { checks: Record<string, { status: string }> };
    expect(readyz.checks).toMatchObject({
      mongodb: { status: 'n/a' }, rabbitmq: { status: 'n/a' }, tenant_manager: { status: 'up' }, multi_tenant_redis: { status: 'down' },
    });
    // Business routes need a verified tenant token.
    expect((await fetch(`${app.baseUrl}/v1/management/connections`)).status).toBe(401);
  });
});
