import { createPublicKey } from 'node:crypto';
import { envBool, envInt, envUrl, type EnvCheck, type EnvProblem, type TlsRequirement } from '@fetcher/platform';
import { z } from 'zod';

/**
 * Why a service refuses to start in multi-tenant mode: the settings parse, but the per-tenant
 * databases, vhosts and consumers are not bound into the services yet.
 */
export const MULTI_TENANT_NOT_SERVED =
  'MULTI_TENANT_ENABLED: the multi-tenant settings are valid, but this release cannot serve tenants yet (per-tenant databases and queues are not wired); set MULTI_TENANT_ENABLED=false';

/** The single-tenant scope: one fixed internal tenant that every engine call carries. */
export const SINGLE_TENANT_ID = 'default';

/** The multi-tenant variables both services read, with the same rules and messages. */
export const TENANCY_ENV = {
  MULTI_TENANT_ENABLED: envBool(false),
  MULTI_TENANT_URL: envUrl({ protocols: ['http', 'https'] }).optional(),
  MULTI_TENANT_SERVICE_API_KEY: z.string().optional(),
  MULTI_TENANT_REDIS_HOST: z.string().optional(),
  MULTI_TENANT_REDIS_PORT: envInt({ min: 1, max: 65_535, default: 6379 }),
  MULTI_TENANT_REDIS_PASSWORD: z.string().optional(),
  MULTI_TENANT_REDIS_TLS: envBool(false),
  /** Read only to refuse it: Redis TLS uses the system trust store. */
  MULTI_TENANT_REDIS_CA_CERT: z.string().optional(),
  MULTI_TENANT_MAX_TENANT_POOLS: envInt({ min: 1, max: 100_000, default: 100 }),
  MULTI_TENANT_IDLE_TIMEOUT_SEC: envInt({ min: 1, max: 86_400, default: 300 }),
  // Any whole number: zero or less means the default breaker (5 failures, open 30 s), never "no breaker".
  MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD: envInt({ min: -1_000_000, max: 1_000_000, default: 5 }),
  MULTI_TENANT_CIRCUIT_BREAKER_TIMEOUT_SEC: envInt({ min: 1, max: 86_400, default: 30 }),
  MULTI_TENANT_CACHE_TTL_SEC: envInt({ min: 1, max: 86_400, default: 120 }),
  MULTI_TENANT_TIMEOUT: envInt({ min: 1, max: 600, default: 30 }),
  MULTI_TENANT_ALLOW_INSECURE_HTTP: envBool(false),
};

/** The Worker's own multi-tenant variable. */
export const TENANCY_WORKER_ENV = {
  MULTI_TENANT_RECONCILE_INTERVAL_SEC: envInt({ min: 1, max: 86_400, default: 60 }),
};

/** The algorithms a tenant token may be signed with: asymmetric only, so no HMAC secret and no `none`. */
export const TENANT_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type TenantTokenAlgorithm = (typeof TENANT_TOKEN_ALGORITHMS)[number];

/** The Manager's token-verification variables (the tenant guard). */
export const TENANCY_TOKEN_ENV = {
  MULTI_TENANT_JWKS_URL: envUrl({ protocols: ['http', 'https'] }).optional(),
  MULTI_TENANT_JWT_PUBLIC_KEY: z.base64({ error: 'must be a base64-encoded PEM public key' }).optional(),
  MULTI_TENANT_JWT_ALGORITHMS: z
    .string()
    .default('RS256,ES256')
    .transform((text) => [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))])
    .superRefine((names, ctx) => {
      if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'must list at least one algorithm' });
      const refused = names.filter((n) => n.toLowerCase() === 'none' || /^HS\d+$/i.test(n));
      if (refused.length > 0) {
        ctx.addIssue({ code: 'custom', message: 'must not contain none or an HMAC algorithm (HS256, HS384, HS512): tenant tokens are verified with a public key' });
        return;
      }
      if (names.some((n) => !(TENANT_TOKEN_ALGORITHMS as readonly string[]).includes(n))) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ${TENANT_TOKEN_ALGORITHMS.join(', ')}` });
      }
    })
    .transform((names) => names as TenantTokenAlgorithm[]),
  MULTI_TENANT_JWT_ISSUER: z.string().optional(),
  MULTI_TENANT_JWT_AUDIENCE: z.string().optional(),
};

const TRUE = /^(true|t|1)$/i;
const EVENT_ENVIRONMENTS = ['staging', 'production'];

/** Whether the raw environment asks for multi-tenant mode (for checks that run before parsing ends). */
export function multiTenantRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  return TRUE.test(env.MULTI_TENANT_ENABLED ?? '');
}

/**
 * The startup refusals of multi-tenant mode, on the environment with blanks removed. Each names the
 * variable to fix, never its value. Nothing is checked in single-tenant mode, where these are unread.
 */
export function tenancyChecks(options: { readonly tokens: boolean }): EnvCheck {
  return (env) => {
    if (!multiTenantRequested(env)) return [];
    const problems: EnvProblem[] = [];
    const required = (variable: string) => {
      if (env[variable] === undefined) problems.push({ variable, message: 'is required when MULTI_TENANT_ENABLED is true' });
    };
    required('MULTI_TENANT_URL');
    required('MULTI_TENANT_SERVICE_API_KEY');
    required('MULTI_TENANT_REDIS_HOST');
    if (env.MULTI_TENANT_REDIS_CA_CERT !== undefined) {
      problems.push({ variable: 'MULTI_TENANT_REDIS_CA_CERT', message: 'must be empty: a custom CA is not supported; Redis TLS uses the system trust store' });
    }
    if (/^http:/i.test(env.MULTI_TENANT_URL ?? '') && !TRUE.test(env.MULTI_TENANT_ALLOW_INSECURE_HTTP ?? '')) {
      problems.push({ variable: 'MULTI_TENANT_URL', message: 'must use https (set MULTI_TENANT_ALLOW_INSECURE_HTTP=true to allow http)' });
    }
    if (!EVENT_ENVIRONMENTS.includes(eventEnvironment(env.ENV_NAME) ?? '')) {
      problems.push({ variable: 'ENV_NAME', message: 'must be staging or production when MULTI_TENANT_ENABLED is true: it names the tenant event channel tenant-events:<ENV_NAME>:' });
    }
    if (options.tokens) {
      const jwks = env.MULTI_TENANT_JWKS_URL !== undefined;
      const key = env.MULTI_TENANT_JWT_PUBLIC_KEY !== undefined;
      if (!jwks && !key) problems.push({ variable: 'MULTI_TENANT_JWKS_URL', message: 'or MULTI_TENANT_JWT_PUBLIC_KEY is required when MULTI_TENANT_ENABLED is true' });
      if (jwks && key) problems.push({ variable: 'MULTI_TENANT_JWT_PUBLIC_KEY', message: 'must not be set together with MULTI_TENANT_JWKS_URL: choose one key source' });
      if (key && !isPublicKeyPem(env.MULTI_TENANT_JWT_PUBLIC_KEY ?? '')) {
        problems.push({ variable: 'MULTI_TENANT_JWT_PUBLIC_KEY', message: 'must be a base64-encoded PEM public key (-----BEGIN PUBLIC KEY-----)' });
      }
    }
    return problems;
  };
}

/** The tenancy part of the SaaS TLS rule. */
export function tenancyTlsRequirements(env: Readonly<Record<string, string | undefined>>): TlsRequirement[] {
  if (!TRUE.test(env.MULTI_TENANT_ENABLED ?? '')) return [];
  return [
    { variable: 'MULTI_TENANT_URL', configured: env.MULTI_TENANT_URL !== undefined, tls: /^https:/i.test(env.MULTI_TENANT_URL ?? '') },
    { variable: 'MULTI_TENANT_REDIS_TLS', configured: env.MULTI_TENANT_REDIS_HOST !== undefined, tls: TRUE.test(env.MULTI_TENANT_REDIS_TLS ?? '') },
    { variable: 'MULTI_TENANT_JWKS_URL', configured: env.MULTI_TENANT_JWKS_URL !== undefined, tls: /^https:/i.test(env.MULTI_TENANT_JWKS_URL ?? '') },
  ];
}

/** A PEM that Node reads as a public key; a private key or certificate is refused so no secret sits in this variable. */
function isPublicKeyPem(base64: string): boolean {
  const pem = Buffer.from(base64, 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN PUBLIC KEY-----')) return false;
  try {
    return createPublicKey(pem).type === 'public';
  } catch {
    return false;
  }
}

function eventEnvironment(envName: string | undefined): string | undefined {
  const name = envName?.trim().toLowerCase();
  return name === '' ? undefined : name;
}

export interface SingleTenancy {
  readonly multiTenant: false;
  readonly tenantId: typeof SINGLE_TENANT_ID;
}

/** Where tenants come from and how their resources are held, as both services read it. */
export interface MultiTenancy {
  readonly multiTenant: true;
  readonly tenantManager: {
    /** Without a trailing slash. */
    readonly url: string;
    /** The `X-API-Key` header value: a secret, never logged. */
    readonly apiKey: string;
    readonly timeoutMs: number;
    readonly cacheTtlSec: number;
    readonly allowInsecureHttp: boolean;
    /** Opens after `threshold` consecutive failures and stays open `openSec` after the last one. */
    readonly breaker: { readonly threshold: number; readonly openSec: number };
  };
  readonly events: {
    readonly redis: { readonly host: string; readonly port: number; readonly password?: string; readonly tls: boolean };
    /** `staging` or `production`. */
    readonly environment: string;
    /** `tenant-events:<environment>:`, trailing colon included. */
    readonly channel: string;
  };
  readonly pools: { readonly maxTenants: number; readonly idleTimeoutSec: number };
}

type TenancyValues = z.output<z.ZodObject<typeof TENANCY_ENV>>;

/**
 * The settings from the parsed variables. Call only after `tenancyChecks` passed: the values it
 * requires are then present.
 */
export function tenancySettingsFrom(e: TenancyValues, envName: string | undefined): SingleTenancy | MultiTenancy {
  if (!e.MULTI_TENANT_ENABLED) return { multiTenant: false, tenantId: SINGLE_TENANT_ID };
  const environment = eventEnvironment(envName) ?? '';
  const defaultBreaker = e.MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD <= 0;
  return {
    multiTenant: true,
    tenantManager: {
      url: (e.MULTI_TENANT_URL ?? '').replace(/\/+$/, ''),
      apiKey: e.MULTI_TENANT_SERVICE_API_KEY ?? '',
      timeoutMs: e.MULTI_TENANT_TIMEOUT * 1000,
      cacheTtlSec: e.MULTI_TENANT_CACHE_TTL_SEC,
      allowInsecureHttp: e.MULTI_TENANT_ALLOW_INSECURE_HTTP,
      breaker: defaultBreaker ? { threshold: 5, openSec: 30 } : { threshold: e.MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD, openSec: e.MULTI_TENANT_CIRCUIT_BREAKER_TIMEOUT_SEC },
    },
    events: {
      redis: {
        host: e.MULTI_TENANT_REDIS_HOST ?? '',
        port: e.MULTI_TENANT_REDIS_PORT,
        ...(e.MULTI_TENANT_REDIS_PASSWORD ? { password: e.MULTI_TENANT_REDIS_PASSWORD } : {}),
        tls: e.MULTI_TENANT_REDIS_TLS,
      },
      environment,
      channel: `tenant-events:${environment}:`,
    },
    pools: { maxTenants: e.MULTI_TENANT_MAX_TENANT_POOLS, idleTimeoutSec: e.MULTI_TENANT_IDLE_TIMEOUT_SEC },
  };
}

/** How the Manager verifies tenant tokens: one key source, asymmetric algorithms, optional iss/aud. */
export interface TenantTokenSettings {
  /** Exactly one of `jwksUrl` and `publicKeyPem`. */
  readonly jwksUrl?: string;
  readonly publicKeyPem?: string;
  readonly algorithms: readonly TenantTokenAlgorithm[];
  readonly issuer?: string;
  /** Any one of these in the token's `aud` is accepted. */
  readonly audience?: readonly string[];
}

type TokenValues = Omit<z.output<z.ZodObject<typeof TENANCY_TOKEN_ENV>>, 'MULTI_TENANT_JWT_ALGORITHMS'> & {
  readonly MULTI_TENANT_JWT_ALGORITHMS: readonly TenantTokenAlgorithm[];
};

export function tenantTokenSettingsFrom(e: TokenValues): TenantTokenSettings {
  const audience = (e.MULTI_TENANT_JWT_AUDIENCE ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return {
    ...(e.MULTI_TENANT_JWKS_URL ? { jwksUrl: e.MULTI_TENANT_JWKS_URL } : {}),
    ...(e.MULTI_TENANT_JWT_PUBLIC_KEY ? { publicKeyPem: Buffer.from(e.MULTI_TENANT_JWT_PUBLIC_KEY, 'base64').toString('utf8') } : {}),
    algorithms: [...e.MULTI_TENANT_JWT_ALGORITHMS],
    ...(e.MULTI_TENANT_JWT_ISSUER ? { issuer: e.MULTI_TENANT_JWT_ISSUER } : {}),
    ...(audience.length > 0 ? { audience } : {}),
  };
}
