import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { loadManagerConfig } from '../config/manager.config';
import { managerTestEnv } from '../testing/manager-test-env';
import { pollUntil } from '../testing/poll';
import { createManagerApp } from './http-app';

describe('the Manager HTTP layer on Fastify', () => {
  let mongo: MongoTestTarget;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    mongo = await withMongo();
    app = await createManagerApp(loadManagerConfig(managerTestEnv(mongo.uri)), { logger: false });
  });
  afterAll(async () => {
    await app?.close();
    await mongo?.close();
  });

  it('answers an unknown route with E4 404 naming the method and path', async () => {
    const res = await app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 404, title: 'request_failed', message: 'Cannot GET /nope' });
  });

  it('answers a body over 4 MiB with E4 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/management/connections',
      headers: { 'content-type': 'application/json', 'x-product-name': 'p' },
      payload: `{"x":"${'a'.repeat(4 * 1024 * 1024 + 10)}"}`,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ code: 413, title: 'request_failed', message: 'Request Entity Too Large' });
  });

  it('mounts the platform routes: /health, /readyz (mongodb and rabbitmq up, redis skipped), /version, /metrics', async () => {
    // The startup self-probe runs in the background; /health reports it once it has finished.
    const health = await pollUntil(async () => {
      const body = (await app.inject({ method: 'GET', url: '/health' })).json<{ reason?: string }>();
      return body.reason === 'self-probe pending' ? undefined : body;
    });
    expect(health).toEqual({ status: 'healthy' });
    const readyz = await app.inject({ method: 'GET', url: '/readyz' });
    expect(readyz.statusCode).toBe(200);
    expect(readyz.json()).toMatchObject({
      status: 'healthy',
      checks: { mongodb: { status: 'up' }, rabbitmq: { status: 'up' }, redis: { status: 'skipped' } },
      deployment_mode: 'local',
    });
    expect((await app.inject({ method: 'GET', url: '/version' })).json()).toMatchObject({ version: '0.0.0' });
    expect((await app.inject({ method: 'GET', url: '/metrics' })).body).toContain('readyz_check_duration_ms');
  });

  it('allows any origin: preflights are answered, answers and errors carry the origin back', async () => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v1/management/connections',
      headers: { origin: 'https://ui.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-product-name' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': 'https://ui.example', 'access-control-allow-headers': 'content-type,x-product-name' });
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    // PATCH and DELETE too: a browser refuses the call when its preflight does not list the method.
    const patch = await app.inject({ method: 'OPTIONS', url: '/v1/management/connections/x', headers: { origin: 'https://ui.example', 'access-control-request-method': 'PATCH' } });
    expect(patch.statusCode).toBe(204);
    expect(String(patch.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['PATCH', 'DELETE', 'PUT']));
    const error = await app.inject({ method: 'GET', url: '/nope', headers: { origin: 'https://ui.example' } });
    expect(error.statusCode).toBe(404);
    expect(error.headers['access-control-allow-origin']).toBe('https://ui.example');
    expect(error.headers.vary).toContain('Origin');
  });

  it('echoes X-Request-Id and generates one when absent', async () => {
    const given = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'req-123' } });
    expect(given.headers['x-request-id']).toBe('req-123');
    const generated = await app.inject({ method: 'GET', url: '/health' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
