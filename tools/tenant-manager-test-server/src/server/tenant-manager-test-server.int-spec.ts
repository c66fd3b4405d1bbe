import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTenantsFile, type TenantsFile } from '../tenants-file';
import { readyLine, runCli } from '../run-cli';
import { startTenantManagerTestServer, type TenantManagerTestServer } from './tenant-manager-test-server';

const API_KEY = `key-${randomUUID()}`;
const FETCHER_CONFIG = {
  id: 'acme',
  tenantSlug: 'acme',
  databases: { fetcher: { mongodb: { uri: 'mongodb://127.0.0.1:27017', database: 'acme_db' } } },
  messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: 'acme', username: 'u', password: 'p' } },
};
const LEDGER_CONFIG = { id: 'acme', tenantSlug: 'acme', databases: { onboarding: { postgresql: { host: 'db', port: 5432, database: 'o', username: 'u', password: 'p' } } } };
const FILE: TenantsFile = {
  apiKey: API_KEY,
  tenants: {
    acme: { name: 'Acme', status: 'active', services: { fetcher: FETCHER_CONFIG, ledger: LEDGER_CONFIG } },
    'ledger-only': { name: 'Ledger only', status: 'active', services: { ledger: LEDGER_CONFIG } },
    paused: { name: 'Paused', status: 'suspended', services: { fetcher: FETCHER_CONFIG } },
    gone: { name: 'Gone', status: 'purged', services: { fetcher: FETCHER_CONFIG } },
  },
};

describe('tenant-manager test server', () => {
  let server: TenantManagerTestServer;
  beforeAll(async () => {
    server = await startTenantManagerTestServer({ tenants: FILE });
  });
  afterAll(() => server?.close());

  const get = async (path: string, key: string | null = API_KEY) => {
    const res = await fetch(`${server.url}${path}`, { headers: key === null ? {} : { 'X-API-Key': key } });
    return { status: res.status, body: (res.status === 204 ? undefined : await res.json()) };
  };
  const put = async (id: string, body: unknown) => {
    const res = await fetch(`${server.url}/_test/tenants/${encodeURIComponent(id)}`, {
      method: 'PUT', headers: { 'X-API-Key': API_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) };
  };

  it('serves a tenant config per service, exactly as given', async () => {
    expect(await get('/v1/tenants/acme/associations/fetcher/connections')).toEqual({ status: 200, body: FETCHER_CONFIG });
    expect(await get('/v1/tenants/acme/associations/ledger/connections')).toEqual({ status: 200, body: LEDGER_CONFIG });
  });

  it('answers 404 for an unknown tenant and for a service the tenant is not associated with', async () => {
    expect(await get('/v1/tenants/nobody/associations/fetcher/connections')).toEqual({ status: 404, body: expect.objectContaining({ code: 'TS-NOT-FOUND' }) });
    expect((await get('/v1/tenants/ledger-only/associations/fetcher/connections')).status).toBe(404);
  });

  it('answers 403 with the status for suspended and purged tenants', async () => {
    expect(await get('/v1/tenants/paused/associations/fetcher/connections')).toEqual({
      status: 403, body: { code: 'TS-SUSPENDED', error: 'service fetcher is suspended for this tenant', status: 'suspended' },
    });
    expect(await get('/v1/tenants/gone/associations/fetcher/connections')).toEqual({ status: 403, body: expect.objectContaining({ status: 'purged' }) });
  });

  it('answers 401 to a wrong or missing API key, on every route', async () => {
    expect((await get('/v1/tenants/acme/associations/fetcher/connections', 'wrong')).status).toBe(401);
    expect((await get('/v1/tenants/active?service=fetcher', null)).status).toBe(401);
    expect((await get('/_test/tenants/acme', 'wrong')).status).toBe(401);
    expect(server.requests().filter((r) => !r.apiKeyValid).length).toBeGreaterThanOrEqual(3);
  });

  it('lists the active tenants of a service as a bare array', async () => {
    expect(await get('/v1/tenants/active?service=fetcher')).toEqual({ status: 200, body: [{ id: 'acme', name: 'Acme', status: 'active' }] });
    const ledger = await get('/v1/tenants/active?service=ledger');
    expect(ledger.body).toEqual(expect.arrayContaining([{ id: 'acme', name: 'Acme', status: 'active' }, { id: 'ledger-only', name: 'Ledger only', status: 'active' }]));
    expect(await get('/v1/tenants/active?service=nothing')).toEqual({ status: 200, body: [] });
    expect((await get('/v1/tenants/active')).status).toBe(400);
  });

  it('decodes percent-escaped path segments', async () => {
    server.putTenant('a b', { name: 'Spaced', status: 'active', services: { fetcher: { id: 'a b' } } });
    expect(await get('/v1/tenants/a%20b/associations/fetcher/connections')).toEqual({ status: 200, body: { id: 'a b' } });
  });

  it('changes a tenant at runtime through PUT /_test/tenants/<id>', async () => {
    const id = `t-${randomUUID()}`;
    expect((await get(`/v1/tenants/${id}/associations/fetcher/connections`)).status).toBe(404);
    expect(await put(id, { name: 'New', status: 'active', services: { fetcher: { id } } })).toMatchObject({ status: 201, body: { id, status: 'active' } });
    expect(await get(`/v1/tenants/${id}/associations/fetcher/connections`)).toEqual({ status: 200, body: { id } });
    expect(await put(id, { name: 'New', status: 'suspended', services: { fetcher: { id } } })).toMatchObject({ status: 200 });
    expect(await get(`/v1/tenants/${id}/associations/fetcher/connections`)).toMatchObject({ status: 403, body: { status: 'suspended' } });
    const removed = await fetch(`${server.url}/_test/tenants/${id}`, { method: 'DELETE', headers: { 'X-API-Key': API_KEY } });
    expect(removed.status).toBe(204);
    expect((await get(`/v1/tenants/${id}/associations/fetcher/connections`)).status).toBe(404);
  });

  it('refuses a PUT body without the documented shape, naming the field', async () => {
    expect(await put('x', { name: 'X', status: 'paused' })).toEqual({
      status: 400, body: { code: 'TS-BAD-REQUEST', error: 'body.status must be one of active, suspended, purged' },
    });
    const res = await fetch(`${server.url}/_test/tenants/x`, { method: 'PUT', headers: { 'X-API-Key': API_KEY }, body: '{not json' });
    expect(res.status).toBe(400);
  });

  it('answers only GET on the tenant-manager routes, and 404 elsewhere', async () => {
    const res = await fetch(`${server.url}/v1/tenants/active?service=fetcher`, { method: 'POST', headers: { 'X-API-Key': API_KEY } });
    expect(res.status).toBe(405);
    expect((await get('/v2/anything')).status).toBe(404);
  });

  it('answers an injected failure status until it is cleared', async () => {
    server.failWith(503);
    expect((await get('/v1/tenants/acme/associations/fetcher/connections')).status).toBe(503);
    server.failWith(undefined);
    expect((await get('/v1/tenants/acme/associations/fetcher/connections')).status).toBe(200);
  });
});

describe('tenant-manager test server command line', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tm-test-server-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads the tenants file, listens and prints exactly the ready line', async () => {
    const file = join(dir, 'tenants.json');
    await writeFile(file, JSON.stringify(FILE));
    const lines: string[] = [];
    const server = await runCli(['--port', '0', '--tenants', file], (line) => lines.push(line));
    try {
      expect(lines).toEqual([`tenant-manager test server listening on http://127.0.0.1:${server.port}\n`]);
      expect(readyLine(server.url)).toBe(`tenant-manager test server listening on http://127.0.0.1:${server.port}`);
      const res = await fetch(`${server.url}/v1/tenants/acme/associations/fetcher/connections`, { headers: { 'X-API-Key': API_KEY } });
      expect(await res.json()).toEqual(FETCHER_CONFIG);
    } finally {
      await server.close();
    }
  });

  it('refuses a file without an API key, without starting', async () => {
    const file = join(dir, 'no-key.json');
    await writeFile(file, JSON.stringify({ tenants: {} }));
    await expect(runCli(['--tenants', file], () => undefined)).rejects.toThrow('apiKey must be a non-empty string');
    await expect(runCli(['--tenants', join(dir, 'missing.json')], () => undefined)).rejects.toThrow('cannot read the tenants file');
  });

  it('accepts the example file shipped for local trials', async () => {
    const example = await readTenantsFile(join(__dirname, '..', '..', 'examples', 'tenants.example.json'));
    expect(Object.keys(example.tenants)).toEqual(['tenant-a', 'tenant-b', 'tenant-suspended']);
  });
});
