import { Controller, Get, Inject, Module, Req } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { MANAGER_CONFIG, type ManagerConfig, type ManagerMultiTenancy } from '../config/manager.config';
import { ErrorFilter } from '../http/error.filter';
import { tenantIdOf } from '../http/request-tenant';
import { FakeAuthorizationService, unsignedToken } from '../testing/fake-authorization-service';
import { JwksServer } from '../testing/jwks-server';
import { aHandMadeToken, anHmacForgery, aSigningKey, aTenantToken, type TestSigningKey } from '../testing/token-signer';
import { Authorize } from './authorize.decorator';
import { PLUGIN_AUTH_OPTIONS, type PluginAuthOptions } from './plugin-auth.options';
import { PluginAuthorizer } from './plugin-authorizer';
import { tenantGuardProviders } from './tenant-guard.providers';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantRecord } from '@fetcher/tenant-manager-test-server';
import { TENANT_MANAGER_CLIENT, tenantManagerClientFrom } from '../adapters/tenancy/tenant-manager.provider';
import { pollUntil } from '../testing/poll';

const ISSUER = 'https://auth.test';
const AUDIENCE = 'fetcher';

/** A protected route that answers with the tenant its handler sees. */
@Controller('probe')
class ProbeController {
  constructor(@Inject(MANAGER_CONFIG) private readonly config: ManagerConfig) {}

  @Get()
  @Authorize('fetcher', 'get')
  read(@Req() request: FastifyRequest): { tenantId: string } {
    return { tenantId: tenantIdOf(this.config.tenancy, request) };
  }
}

const API_KEY = 'guard-test-key';
const active = (id: string, status: TenantRecord['status'] = 'active'): TenantRecord => ({
  name: id, status, services: { fetcher: { id, tenantSlug: id, databases: { fetcher: { mongodb: { database: `db_${id}` } } } } },
});
/** The tenant-manager every guard below asks (step 6); the tenants the tokens name are active there. */
let tenantManager: TenantManagerTestServer;
beforeAll(async () => {
  const tenants = Object.fromEntries(['acme', 'acme_eu-1', 'globex', 'a', 'b', 'c'].map((id) => [id, active(id)]));
  tenants.paused = active('paused', 'suspended');
  tenants.gone = active('gone', 'purged');
  tenantManager = await startTenantManagerTestServer({ tenants: { apiKey: API_KEY, tenants } });
});
afterAll(async () => {
  await tenantManager?.close();
});

function tenancyWith(tokens: ManagerMultiTenancy['tokens'], breaker = { threshold: 5, openSec: 30 }): ManagerMultiTenancy {
  return {
    multiTenant: true,
    tenantManager: { url: tenantManager.url, apiKey: API_KEY, timeoutMs: 1000, cacheTtlSec: 1, allowInsecureHttp: true, breaker },
    events: { redis: { host: 'redis.invalid', port: 6379, tls: false }, environment: 'staging', channel: 'tenant-events:staging:' },
    pools: { maxTenants: 1, idleTimeoutSec: 1 },
    tokens,
  };
}

/** The guard as the composition root binds it, on a real Fastify server on port 0. */
async function startApp(tenancy: ManagerMultiTenancy, pluginAuth: PluginAuthOptions = { enabled: false }) {
  @Module({
    controllers: [ProbeController],
    providers: [
      { provide: MANAGER_CONFIG, useValue: { tenancy } as Partial<ManagerConfig> },
      { provide: PLUGIN_AUTH_OPTIONS, useValue: pluginAuth },
      PluginAuthorizer,
      { provide: TENANT_MANAGER_CLIENT, useFactory: () => tenantManagerClientFrom(tenancy) },
      ...tenantGuardProviders(tenancy),
      ErrorFilter,
      { provide: APP_FILTER, useExisting: ErrorFilter },
    ],
  })
  class ProbeModule {}
  const app = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const get = async (authorization?: string) => {
    const response = await fetch(`http://127.0.0.1:${address.port}/probe`, { headers: authorization === undefined ? {} : { authorization } });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type') ?? '', text, body: text.startsWith('{') ? (JSON.parse(text) as unknown) : undefined };
  };
  return { app, get };
}

const E6 = (code: string, message: string) => ({ code, title: 'Unauthorized', message });
const MISSING_TOKEN = E6('MISSING_TOKEN', 'Authorization token is required');
const INVALID_TOKEN = E6('INVALID_TOKEN', 'Authorization token is invalid');
const MISSING_TENANT = E6('MISSING_TENANT', 'tenantId is required in JWT token');
const INVALID_TENANT = E6('INVALID_TENANT', 'tenantId has an invalid format');

describe('the tenant guard with a JWKS on a local HTTP server', () => {
  let jwks: JwksServer;
  let key: TestSigningKey;
  let other: TestSigningKey;
  let sut: Awaited<ReturnType<typeof startApp>>;

  beforeAll(async () => {
    key = await aSigningKey('k1');
    other = await aSigningKey('k1'); // the same kid, another key: only the signature tells them apart
    jwks = await JwksServer.start([key.jwk]);
    sut = await startApp(tenancyWith({ jwksUrl: jwks.url, algorithms: ['RS256', 'ES256'], issuer: ISSUER, audience: [AUDIENCE] }));
  });
  afterAll(async () => {
    await sut?.app.close();
    await jwks?.close();
  });

  const valid = (tenantId: string | undefined, options: Parameters<typeof aTenantToken>[2] = {}) =>
    aTenantToken(key, tenantId, { issuer: ISSUER, audience: AUDIENCE, ...options });

  it('lets a verified token through, and the handler sees its tenant', async () => {
    const res = await sut.get(`Bearer ${await valid('acme_eu-1')}`);
    expect(res).toMatchObject({ status: 200, body: { tenantId: 'acme_eu-1' } });
    expect((await sut.get(`bearer ${await valid('globex')}`)).body).toEqual({ tenantId: 'globex' });
  });

  it.each([
    ['no Authorization header', async () => undefined, MISSING_TOKEN],
    ['an empty bearer', async () => 'Bearer ', MISSING_TOKEN],
    ['another scheme', async () => `Basic ${await valid('acme')}`, MISSING_TOKEN],
    ['two parts', async () => `Bearer ${(await valid('acme')).split('.').slice(0, 2).join('.')}`, INVALID_TOKEN],
    ['claims that are not JSON', async () => `Bearer ${Buffer.from('{"alg":"RS256"}').toString('base64url')}.bm90LWpzb24.sig`, INVALID_TOKEN],
    ['no tenantId claim', async () => `Bearer ${await valid(undefined)}`, MISSING_TENANT],
    ['a tenantId with a slash', async () => `Bearer ${await valid('acme/../globex')}`, INVALID_TENANT],
    ['a tenantId starting with a dash', async () => `Bearer ${await valid('-acme')}`, INVALID_TENANT],
    ['a numeric tenantId', async () => `Bearer ${await valid(undefined, { claims: { tenantId: 42 } })}`, INVALID_TENANT],
    ['a tenantId of 257 characters', async () => `Bearer ${await valid('a'.repeat(257))}`, INVALID_TENANT],
    ['an unsigned token', async () => `Bearer ${aHandMadeToken({ alg: 'RS256', kid: 'k1' }, { tenantId: 'acme', exp: 4e9, iss: ISSUER, aud: AUDIENCE })}`, INVALID_TOKEN],
    ['alg none', async () => `Bearer ${aHandMadeToken({ alg: 'none' }, { tenantId: 'acme', exp: 4e9, iss: ISSUER, aud: AUDIENCE })}`, INVALID_TOKEN],
    ['HS256 with the public key as secret', async () => `Bearer ${anHmacForgery(key.publicPem, 'k1', { tenantId: 'acme', exp: 4e9, iss: ISSUER, aud: AUDIENCE })}`, INVALID_TOKEN],
    ['a signature by another key', async () => `Bearer ${await aTenantToken(other, 'acme', { issuer: ISSUER, audience: AUDIENCE })}`, INVALID_TOKEN],
    ['a claims part swapped into a signed token', async () => {
      const [header, , signature] = (await valid('acme')).split('.');
      return `Bearer ${header}.${Buffer.from(JSON.stringify({ tenantId: 'globex', exp: 4e9, iss: ISSUER, aud: AUDIENCE })).toString('base64url')}.${signature}`;
    }, INVALID_TOKEN],
    ['an expiry more than 60 s ago', async () => `Bearer ${await valid('acme', { expiresIn: -61 })}`, INVALID_TOKEN],
    ['a start more than 60 s ahead', async () => `Bearer ${await valid('acme', { notBefore: 90 })}`, INVALID_TOKEN],
    ['no expiry', async () => `Bearer ${await valid('acme', { expiresIn: null })}`, INVALID_TOKEN],
    ['another issuer', async () => `Bearer ${await valid('acme', { issuer: 'https://evil.test' })}`, INVALID_TOKEN],
    ['another audience', async () => `Bearer ${await valid('acme', { audience: 'ledger' })}`, INVALID_TOKEN],
  ])('refuses %s with its E6 body', async (_case, authorization, body) => {
    const res = await sut.get(await authorization());
    expect(res.status).toBe(401);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual(body);
  });

  it('accepts the 60 s leeway on both sides', async () => {
    expect((await sut.get(`Bearer ${await valid('acme', { expiresIn: -30 })}`)).status).toBe(200);
    expect((await sut.get(`Bearer ${await valid('acme', { notBefore: 30 })}`)).status).toBe(200);
  });

  it('checks the claim shape before the signature: a forged token with a bad tenantId is INVALID_TENANT', async () => {
    const res = await sut.get(`Bearer ${aHandMadeToken({ alg: 'none' }, { tenantId: 'a b' })}`);
    expect(res.body).toEqual(INVALID_TENANT);
  });
});

describe('the tenant guard refreshing its JWKS', () => {
  let jwks: JwksServer;
  let first: TestSigningKey;
  let rotated: TestSigningKey;
  let sut: Awaited<ReturnType<typeof startApp>>;
  const start = Date.parse('2026-06-01T00:00:00Z');

  beforeAll(async () => {
    first = await aSigningKey('first', 'ES256');
    rotated = await aSigningKey('rotated', 'ES256');
    jwks = await JwksServer.start([first.jwk]);
    sut = await startApp(tenancyWith({ jwksUrl: jwks.url, algorithms: ['ES256'] }));
    // Only Date is faked: the key set's cooldown is measured with it, while sockets and timers stay real.
    jest.useFakeTimers({ now: start, doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  });
  afterAll(async () => {
    jest.useRealTimers();
    await sut?.app.close();
    await jwks?.close();
  });

  it('downloads the set once and answers later tokens from the cache', async () => {
    for (const tenant of ['a', 'b', 'c']) expect((await sut.get(`Bearer ${await aTenantToken(first, tenant)}`)).body).toEqual({ tenantId: tenant });
    expect(jwks.fetches).toBe(1);
  });

  it('refreshes once for an unknown kid after the cooldown, and then knows the rotated key', async () => {
    jwks.keys = [first.jwk, rotated.jwk];
    jest.setSystemTime(start + 31_000);
    expect((await sut.get(`Bearer ${await aTenantToken(rotated, 'acme')}`)).body).toEqual({ tenantId: 'acme' });
    expect(jwks.fetches).toBe(2);
    expect((await sut.get(`Bearer ${await aTenantToken(rotated, 'acme')}`)).status).toBe(200);
    expect(jwks.fetches).toBe(2);
  });

  it('bounds the refresh rate: a burst of unknown kids costs at most one download per cooldown', async () => {
    const forged = await aSigningKey('unknown', 'ES256');
    const burst = async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, async () => (await sut.get(`Bearer ${await aTenantToken(forged, 'acme')}`)).body));
      expect(answers).toEqual(Array.from({ length: 20 }, () => INVALID_TOKEN));
    };
    await burst(); // within the cooldown of the refresh above: no download at all
    expect(jwks.fetches).toBe(2);
    jest.setSystemTime(start + 62_000);
    await burst(); // the cooldown is over: the first one refreshes, the rest wait for it or are refused
    expect(jwks.fetches).toBe(3);
  });

  it('keeps refusing a remembered token once it expires, and re-checks it after a minute', async () => {
    const now = start + 62_000;
    jest.setSystemTime(now);
    const token = await aTenantToken(first, 'acme', { expiresIn: 30 });
    expect((await sut.get(`Bearer ${token}`)).status).toBe(200);
    jest.setSystemTime(now + 89_000); // 30 s lifetime + 60 s leeway not yet over
    expect((await sut.get(`Bearer ${token}`)).status).toBe(200);
    jest.setSystemTime(now + 91_000);
    expect((await sut.get(`Bearer ${token}`)).body).toEqual(INVALID_TOKEN);
  });

  it('answers 503 when the set cannot be downloaded, since the token may be fine', async () => {
    jwks.failing = true;
    jest.setSystemTime(start + 160_000);
    const res = await sut.get(`Bearer ${await aTenantToken((await aSigningKey('new-one', 'ES256')), 'acme')}`);
    expect(res).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable' } });
    // A cached key still works while the server is down.
    expect((await sut.get(`Bearer ${await aTenantToken(first, 'acme')}`)).status).toBe(200);
    jwks.failing = false;
  });
});

describe('the tenant guard with a PEM public key, behind plugin-auth', () => {
  let key: TestSigningKey;
  let auth: FakeAuthorizationService;
  let sut: Awaited<ReturnType<typeof startApp>>;

  beforeAll(async () => {
    key = await aSigningKey('pem');
    auth = await FakeAuthorizationService.start();
    sut = await startApp(tenancyWith({ publicKeyPem: key.publicPem, algorithms: ['RS256'] }), { enabled: true, address: auth.url });
  });
  afterAll(async () => {
    await sut?.app.close();
    auth?.close();
  });

  it('lets plugin-auth answer first: no token is its plain-text 401', async () => {
    const res = await sut.get();
    expect(res).toMatchObject({ status: 401, text: 'Missing Token' });
    expect(res.type).toMatch(/^text\/plain/);
  });

  it('then verifies the token that plugin-auth let through', async () => {
    // The fake authorization service allows the editor role, which any token without type normal-user gets.
    expect((await sut.get(`Bearer ${await aTenantToken(key, 'acme')}`)).body).toEqual({ tenantId: 'acme' });
    expect((await sut.get(`Bearer ${unsignedToken({ tenantId: 'acme', exp: 4e9 })}`)).body).toEqual(INVALID_TOKEN);
    expect(auth.asked).toHaveLength(2);
  });
});

describe('the tenant guard asking the tenant-manager (step 6)', () => {
  let key: TestSigningKey;
  let sut: Awaited<ReturnType<typeof startApp>>;

  beforeAll(async () => {
    key = await aSigningKey('step6');
    // Two failures open the breaker for one second.
    sut = await startApp(tenancyWith({ publicKeyPem: key.publicPem, algorithms: ['RS256'] }, { threshold: 2, openSec: 1 }));
  });
  afterAll(async () => {
    tenantManager.failWith(undefined);
    await sut?.app.close();
  });
  const as = async (tenant: string) => sut.get(`Bearer ${await aTenantToken(key, tenant)}`);

  it('refuses a tenant the tenant-manager does not know with 404 TENANT_NOT_FOUND', async () => {
    expect(await as('nobody')).toMatchObject({ status: 404, body: { code: 'TENANT_NOT_FOUND', title: 'Not Found', message: 'tenant not found: nobody' } });
  });

  it('refuses a suspended or purged tenant with 403 0131', async () => {
    expect(await as('paused')).toMatchObject({ status: 403, body: { code: '0131', title: 'Service Suspended', message: 'tenant service is suspended' } });
    expect(await as('gone')).toMatchObject({ status: 403, body: { code: '0131', title: 'Service Suspended', message: 'tenant service is purged' } });
  });

  it('answers 503 while the tenant-manager fails, opens the breaker, and recovers without a restart', async () => {
    tenantManager.failWith(503);
    const before = tenantManager.requests().length;
    // `b` is not cached by this app's client yet, so each request asks.
    expect(await as('b')).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
    expect(await as('b')).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
    const afterTwo = tenantManager.requests().length;
    expect(afterTwo - before).toBe(2);
    // Open: refused at once, nothing sent.
    expect(await as('b')).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
    expect(tenantManager.requests().length).toBe(afterTwo);
    tenantManager.failWith(undefined);
    await pollUntil(async () => (await as('b')).status === 200, 10_000, 100);
    expect(await as('b')).toMatchObject({ status: 200, body: { tenantId: 'b' } });
  });
});
