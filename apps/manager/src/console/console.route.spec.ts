import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerConsoleRoutes } from './console.route';

describe(registerConsoleRoutes.name, () => {
  let dir: string;
  let app: FastifyInstance;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/console/assets/index-abc123.js"></script>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'not an asset');
    app = Fastify();
    registerConsoleRoutes(app, { enabled: true, dir });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the settings the page adapts to: the result route is off unless the Manager serves it', async () => {
    const off = await app.inject({ url: '/console/settings.json' });
    expect({ status: off.statusCode, type: off.headers['content-type'], cache: off.headers['cache-control'], body: off.json() })
      .toEqual({ status: 200, type: 'application/json; charset=utf-8', cache: 'no-cache', body: { resultDownload: false } });
    const other = Fastify();
    registerConsoleRoutes(other, { enabled: true, dir }, { resultDownload: true });
    await other.ready();
    expect((await other.inject({ url: '/console/settings.json' })).json()).toEqual({ resultDownload: true });
    await other.close();
  });

  it('serves the page with a strict policy and no caching, and redirects /console to it', async () => {
    const page = await app.inject({ url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).toContain('/console/assets/index-abc123.js');

    const bare = await app.inject({ url: '/console' });
    expect({ status: bare.statusCode, location: bare.headers.location }).toEqual({ status: 301, location: '/console/' });
  });

  it('serves hashed assets for a year, with their type and the same headers', async () => {
    const asset = await app.inject({ url: '/console/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect(asset.body).toBe('console.log(1)');
  });

  it('answers 404 for anything outside assets/, unknown types and dot segments', async () => {
    for (const url of ['/console/assets/missing-1.js', '/console/assets/..%2Fsecret.txt', '/console/assets/..%2Findex.html', '/console/secret.txt', '/console/assets/x.txt']) {
      const answer = await app.inject({ url });
      expect({ url, status: answer.statusCode }).toEqual({ url, status: 404 });
      expect(answer.body).not.toContain('not an asset');
    }
  });

  it('says how to build the console when its files are missing', async () => {
    rmSync(join(dir, 'index.html'));
    const page = await app.inject({ url: '/console/' });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('npm run build');
  });

  it('registers nothing when the console is off', async () => {
    const off = Fastify();
    registerConsoleRoutes(off, { enabled: false, dir });
    await off.ready();
    expect((await off.inject({ url: '/console/' })).statusCode).toBe(404);
    expect((await off.inject({ url: '/console/assets/index-abc123.js' })).statusCode).toBe(404);
    await off.close();
  });
});
