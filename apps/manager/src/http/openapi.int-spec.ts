import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
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

  it('is served at /swagger/doc.json, with the UI at /swagger/index.html', async () => {
    const doc = await app.inject({ method: 'GET', url: '/swagger/doc.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toMatchObject({ openapi: expect.stringMatching(/^3\./), paths: expect.objectContaining({ '/v1/management/connections': expect.any(Object) }) });
    const ui = await app.inject({ method: 'GET', url: '/swagger/index.html' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
  });
});
