import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { BUCKET } from '../adapters/redis/token-bucket';
import { loadManagerConfig } from '../config/manager.config';
import { managerTestEnv } from '../testing/manager-test-env';
import { createManagerApp } from './http-app';
import { buildOpenApiDocument } from './openapi';

const COMMITTED = join(__dirname, '..', '..', 'openapi.json');

/**
 * The committed `apps/manager/openapi.json` must be what the decorators produce. After changing a
 * route or DTO, regenerate it with `UPDATE_OPENAPI=1 npx jest apps/manager/src/http/openapi
 * --selectProjects integration` and commit the result.
 */
describe('the committed OpenAPI document', () => {
  let mongo: MongoTestTarget;
  let app: NestFastifyApplication;
  const config = () => loadManagerConfig(managerTestEnv(mongo.uri));

  beforeAll(async () => {
    mongo = await withMongo();
    app = await createManagerApp(config(), { logger: false });
  });
  afterAll(async () => {
    await app?.close();
    await mongo?.close();
  });

  it('is up to date with the controllers and DTOs', () => {
    const generated = `${JSON.stringify(buildOpenApiDocument(app, config()), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(COMMITTED, generated);
    expect(readFileSync(COMMITTED, 'utf8')).toBe(generated);
  });

  it('carries none of the internal body labels (E1 ... E8) in its texts', () => {
    const text = JSON.stringify(buildOpenApiDocument(app, config()));
    expect(text.match(/\bE[1-9]\b/g) ?? []).toEqual([]);
  });

  it("states the connection test's rate limit as the bucket enforces it (docs/api.md says the same)", () => {
    const summary = (buildOpenApiDocument(app, config()).paths['/v1/management/connections/{id}/test'] as Record<string, { summary?: string }>).post.summary;
    expect(summary).toContain(`${BUCKET.capacity} tests at once, then one more every ${BUCKET.refillIntervalMs / 1000} seconds`);
    expect(readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'api.md'), 'utf8')).toContain(
      `${BUCKET.capacity} tests at once, then one more every ${BUCKET.refillIntervalMs / 1000} seconds`,
    );
  });

  it('documents every /v1 route the app serves, the job-status route included', () => {
    const served = servedRoutes(app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false })).filter((route) => route.path.startsWith('/v1/'));
    expect(served).toContainEqual({ method: 'get', path: '/v1/fetcher/{id}' });
    const paths = buildOpenApiDocument(app, config()).paths;
    const undocumented = served.filter(({ method, path }) => (paths[path] as Record<string, unknown> | undefined)?.[method] === undefined);
    expect(undocumented).toEqual([]);
  });

  it('is served at /swagger/doc.json, with the UI at /swagger/index.html', async () => {
    const doc = await app.inject({ method: 'GET', url: '/swagger/doc.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toMatchObject({ openapi: expect.stringMatching(/^3\./), paths: expect.objectContaining({ '/v1/management/connections': expect.any(Object) }) });
    const ui = await app.inject({ method: 'GET', url: '/swagger/index.html' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
    for (const url of ['/swagger', '/swagger/']) {
      const redirect = await app.inject({ method: 'GET', url });
      expect({ url, status: redirect.statusCode, location: redirect.headers.location }).toEqual({ url, status: 302, location: '/swagger/index.html' });
    }
  });
});

/**
 * The (method, OpenAPI path) pairs of Fastify's route tree as `printRoutes({ commonPrefix: false })`
 * draws it: one node per line, its depth given by the position of the `── ` branch, its methods in
 * parentheses (`-` for a node that only joins others). HEAD is Fastify's automatic twin of GET.
 */
function servedRoutes(tree: string): Array<{ method: string; path: string }> {
  const stack: string[] = [];
  const routes: Array<{ method: string; path: string }> = [];
  for (const line of tree.split('\n')) {
    const branch = line.indexOf('── ');
    if (branch < 0) continue;
    const match = /^(.*) \(([^)]*)\)$/.exec(line.slice(branch + 3));
    if (!match) throw new Error(`unexpected route line: ${line}`);
    const depth = (branch - 1) / 4;
    stack.length = depth;
    stack.push(match[1]);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of match[2].split(', ')) {
      if (method !== '-' && method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method: method.toLowerCase(), path });
    }
  }
  return routes;
}
