import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, parseEnv, saasTlsProblems } from '@fetcher/platform';
import { z } from 'zod';
import { TENANCY_ENV, TENANCY_TOKEN_ENV, tenancyChecks, tenancySettingsFrom, tenancyTlsRequirements, tenantTokenSettingsFrom } from './tenancy-env';

// The fragments as the Manager spreads them into its schema (the Worker leaves the token variables out).
const SCHEMA = z.object({ ENV_NAME: z.string().optional(), ...TENANCY_ENV, ...TENANCY_TOKEN_ENV });
const load = (env: Record<string, string | undefined>, tokens = true) =>
  parseEnv(SCHEMA, env, [tenancyChecks({ tokens }), (e) => saasTlsProblems(e.DEPLOYMENT_MODE, tenancyTlsRequirements(e))]);
const problems = (env: Record<string, string | undefined>, tokens = true): string[] => {
  try {
    load(env, tokens);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
};

const PUBLIC_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const MT: Record<string, string> = {
  ENV_NAME: 'staging',
  MULTI_TENANT_ENABLED: 'true',
  MULTI_TENANT_URL: 'https://tenant-manager.internal/',
  MULTI_TENANT_SERVICE_API_KEY: 'key-123',
  MULTI_TENANT_REDIS_HOST: 'events.internal',
  MULTI_TENANT_JWKS_URL: 'https://auth.internal/.well-known/jwks.json',
};

describe('the tenancy configuration', () => {
  it('is single-tenant by default and reads nothing else then', () => {
    const e = load({ MULTI_TENANT_URL: 'http://ignored' });
    expect(tenancySettingsFrom(e, undefined)).toEqual({ multiTenant: false, tenantId: 'default' });
  });

  it('reads every multi-tenant setting with the documented defaults', () => {
    const e = load(MT);
    expect(tenancySettingsFrom(e, e.ENV_NAME)).toEqual({
      multiTenant: true,
      tenantManager: {
        url: 'https://tenant-manager.internal',
        apiKey: 'key-123',
        timeoutMs: 30_000,
        cacheTtlSec: 120,
        allowInsecureHttp: false,
        breaker: { threshold: 5, openSec: 30 },
      },
      events: { redis: { host: 'events.internal', port: 6379, tls: false }, environment: 'staging', channel: 'tenant-events:staging:' },
      pools: { maxTenants: 100, idleTimeoutSec: 300 },
    });
    expect(tenantTokenSettingsFrom(e)).toEqual({ jwksUrl: 'https://auth.internal/.well-known/jwks.json', algorithms: ['RS256', 'ES256'] });
  });

  it('reads the tuning values, the Redis password and TLS, and a PEM key with issuer and audiences', () => {
    const e = load({
      ...MT,
      ENV_NAME: ' Production ',
      MULTI_TENANT_JWKS_URL: undefined,
      MULTI_TENANT_JWT_PUBLIC_KEY: Buffer.from(PUBLIC_PEM).toString('base64'),
      MULTI_TENANT_JWT_ALGORITHMS: 'ES256, EdDSA',
      MULTI_TENANT_JWT_ISSUER: 'https://auth.internal',
      MULTI_TENANT_JWT_AUDIENCE: 'fetcher, fetcher-admin',
      MULTI_TENANT_REDIS_PORT: '6380',
      MULTI_TENANT_REDIS_PASSWORD: 'pw',
      MULTI_TENANT_REDIS_TLS: 'true',
      MULTI_TENANT_MAX_TENANT_POOLS: '8',
      MULTI_TENANT_IDLE_TIMEOUT_SEC: '60',
      MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD: '3',
      MULTI_TENANT_CIRCUIT_BREAKER_TIMEOUT_SEC: '10',
      MULTI_TENANT_CACHE_TTL_SEC: '5',
      MULTI_TENANT_TIMEOUT: '2',
    });
    const tenancy = tenancySettingsFrom(e, e.ENV_NAME);
    expect(tenancy).toMatchObject({
      tenantManager: { timeoutMs: 2_000, cacheTtlSec: 5, breaker: { threshold: 3, openSec: 10 } },
      events: { redis: { host: 'events.internal', port: 6380, password: 'pw', tls: true }, channel: 'tenant-events:production:' },
      pools: { maxTenants: 8, idleTimeoutSec: 60 },
    });
    expect(tenantTokenSettingsFrom(e)).toEqual({ publicKeyPem: PUBLIC_PEM, algorithms: ['ES256', 'EdDSA'], issuer: 'https://auth.internal', audience: ['fetcher', 'fetcher-admin'] });
  });

  it.each(['0', '-2'])('falls back to the default breaker for a threshold of %s, never to none', (threshold) => {
    const e = load({ ...MT, MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD: threshold, MULTI_TENANT_CIRCUIT_BREAKER_TIMEOUT_SEC: '99' });
    expect(tenancySettingsFrom(e, e.ENV_NAME)).toMatchObject({ tenantManager: { breaker: { threshold: 5, openSec: 30 } } });
  });

  it('refuses each missing prerequisite by name, all at once', () => {
    expect(problems({ ENV_NAME: 'staging', MULTI_TENANT_ENABLED: 'true' }).sort()).toEqual([
      'MULTI_TENANT_JWKS_URL: or MULTI_TENANT_JWT_PUBLIC_KEY is required when MULTI_TENANT_ENABLED is true',
      'MULTI_TENANT_REDIS_HOST: is required when MULTI_TENANT_ENABLED is true',
      'MULTI_TENANT_SERVICE_API_KEY: is required when MULTI_TENANT_ENABLED is true',
      'MULTI_TENANT_URL: is required when MULTI_TENANT_ENABLED is true',
    ]);
  });

  it('does not ask the Worker for a token key source', () => {
    expect(problems({ ...MT, MULTI_TENANT_JWKS_URL: undefined }, false)).toEqual([]);
  });

  it('refuses a Redis CA certificate, which the event client does not take', () => {
    expect(problems({ ...MT, MULTI_TENANT_REDIS_CA_CERT: 'LS0tLS1CRUdJTi0tLS0t' })).toEqual([
      'MULTI_TENANT_REDIS_CA_CERT: must be empty: a custom CA is not supported; Redis TLS uses the system trust store',
    ]);
  });

  it('refuses an http tenant-manager unless insecure HTTP is allowed', () => {
    expect(problems({ ...MT, MULTI_TENANT_URL: 'http://tenant-manager:8080' })).toEqual([
      'MULTI_TENANT_URL: must use https (set MULTI_TENANT_ALLOW_INSECURE_HTTP=true to allow http)',
    ]);
    expect(problems({ ...MT, MULTI_TENANT_URL: 'http://tenant-manager:8080', MULTI_TENANT_ALLOW_INSECURE_HTTP: 't' })).toEqual([]);
  });

  it.each([undefined, 'local', 'development', 'prod'])('refuses ENV_NAME=%s, which names no tenant event channel', (envName) => {
    expect(problems({ ...MT, ENV_NAME: envName })).toEqual([
      'ENV_NAME: must be staging or production when MULTI_TENANT_ENABLED is true: it names the tenant event channel tenant-events:<ENV_NAME>:',
    ]);
  });

  it.each(['none', 'HS256', 'RS256,hs512', 'none,ES256'])('never accepts %s among the token algorithms', (algorithms) => {
    expect(problems({ ...MT, MULTI_TENANT_JWT_ALGORITHMS: algorithms })).toEqual([
      'MULTI_TENANT_JWT_ALGORITHMS: must not contain none or an HMAC algorithm (HS256, HS384, HS512): tenant tokens are verified with a public key',
    ]);
  });

  it('refuses an unknown algorithm and an empty list', () => {
    expect(problems({ ...MT, MULTI_TENANT_JWT_ALGORITHMS: 'RS256,XY1' })[0]).toMatch(/^MULTI_TENANT_JWT_ALGORITHMS: must be a comma-separated list of RS256/);
    expect(problems({ ...MT, MULTI_TENANT_JWT_ALGORITHMS: ' , ' })).toEqual(['MULTI_TENANT_JWT_ALGORITHMS: must list at least one algorithm']);
  });

  it('refuses two key sources, and a key that is not a PEM public key, without quoting it', () => {
    const privatePem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const privateKey = Buffer.from(privatePem).toString('base64');
    expect(problems({ ...MT, MULTI_TENANT_JWT_PUBLIC_KEY: Buffer.from(PUBLIC_PEM).toString('base64') })).toEqual([
      'MULTI_TENANT_JWT_PUBLIC_KEY: must not be set together with MULTI_TENANT_JWKS_URL: choose one key source',
    ]);
    const found = problems({ ...MT, MULTI_TENANT_JWKS_URL: undefined, MULTI_TENANT_JWT_PUBLIC_KEY: privateKey });
    expect(found).toEqual(['MULTI_TENANT_JWT_PUBLIC_KEY: must be a base64-encoded PEM public key (-----BEGIN PUBLIC KEY-----)']);
    expect(found.join('\n')).not.toContain(privateKey.slice(0, 20));
  });

  it('refuses URLs without a host or with credentials in them', () => {
    expect(problems({ ...MT, MULTI_TENANT_URL: 'http//x', MULTI_TENANT_JWKS_URL: 'https://u:p@auth/jwks' }).sort()).toEqual([
      'MULTI_TENANT_JWKS_URL: must not contain user credentials; use the dedicated variables',
      'MULTI_TENANT_URL: must be an absolute URL',
    ]);
  });

  it('asks for TLS on the tenant-manager, the event Redis and the key set in SaaS', () => {
    const found = problems({ ...MT, DEPLOYMENT_MODE: 'saas', MULTI_TENANT_URL: 'http://tm', MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true', MULTI_TENANT_JWKS_URL: 'http://auth/jwks' });
    expect(found.sort()).toEqual([
      'MULTI_TENANT_JWKS_URL: must use TLS when DEPLOYMENT_MODE=saas',
      'MULTI_TENANT_REDIS_TLS: must use TLS when DEPLOYMENT_MODE=saas',
      'MULTI_TENANT_URL: must use TLS when DEPLOYMENT_MODE=saas',
    ]);
  });

  it('never quotes the API key or the Redis password', () => {
    const found = problems({ ...MT, MULTI_TENANT_SERVICE_API_KEY: 'sekrit-key', MULTI_TENANT_REDIS_PASSWORD: 'sekrit-pw', MULTI_TENANT_REDIS_PORT: 'sekrit' }).join('\n');
    expect(found).toContain('MULTI_TENANT_REDIS_PORT');
    expect(found).not.toContain('sekrit');
  });
});
