import { invalidAllowlistEntries } from '@fetcher/connectors';
import { amqpUrl, ConfigError, type KeyRing, parseKeyRingEnv, parseListenAddress } from '@fetcher/platform';
import { z } from 'zod';
import { envBoolean, envEndpointUrl, envInteger } from './env-rules';
import { type InternalDatasourceConfig, readInternalDatasources } from './internal-datasources.config';

export const MANAGER_CONFIG = Symbol('ManagerConfig');

const DEPLOYMENT_MODES = ['local', 'saas', 'byoc'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const HTTP = ['http', 'https'] as const;

/**
 * Every variable the Manager reads. Blank values are removed before parsing (a blank chart value
 * means "unset"); messages name the variable and the rule, never the value.
 */
export const MANAGER_ENV_SCHEMA = z.object({
  ENV_NAME: z.string().default('local'),
  SERVER_ADDRESS: z.string().default(':4006'),
  VERSION: z.string().default('0.0.0'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),

  APP_ENC_KEY: z.string({ error: 'is required' }),
  APP_ENC_KEY_VERSION: z.string().optional(),
  APP_ENC_KEY_PREVIOUS: z.string().optional(),
  SCHEMA_CACHE_TTL_SECONDS: z.string().optional(),

  MONGO_URI: z.enum(['mongodb', 'mongodb+srv'], { error: 'must be mongodb or mongodb+srv' }).default('mongodb'),
  MONGO_HOST: z.string().default('localhost'),
  MONGO_PORT: z.coerce.number({ error: 'must be a port' }).int('must be a port').min(1, 'must be a port').max(65_535, 'must be a port').optional(),
  MONGO_USER: z.string().optional(),
  MONGO_PASSWORD: z.string().optional(),
  MONGO_NAME: z.string({ error: 'is required' }),
  MONGO_PARAMETERS: z.string().optional(),
  MONGO_TLS_CA_CERT: z.base64({ error: 'must be base64' }).optional(),

  RABBITMQ_URI: z.enum(['amqp', 'amqps'], { error: 'must be amqp or amqps' }).default('amqp'),
  RABBITMQ_HOST: z.string().default('localhost'),
  RABBITMQ_PORT_AMQP: envInteger({ min: 1, max: 65_535, fallback: 5672 }),
  RABBITMQ_DEFAULT_USER: z.string().optional(),
  RABBITMQ_DEFAULT_PASS: z.string().optional(),
  RABBITMQ_PORT_HOST: envInteger({ min: 1, max: 65_535, fallback: 15_672 }),
  RABBITMQ_HEALTH_CHECK_URL: envEndpointUrl(HTTP).optional(),
  RABBITMQ_FETCHER_WORK_QUEUE: z.string({ error: 'is required' }),
  RABBITMQ_TLS: envBoolean(false),

  PLUGIN_AUTH_ENABLED: envBoolean(false),
  PLUGIN_AUTH_ADDRESS: envEndpointUrl(HTTP).optional(),

  REDIS_HOST: z.string().optional(),
  REDIS_PORT: envInteger({ min: 1, max: 65_535, fallback: 6379 }),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_DB: envInteger({ min: 0, max: 65_535, fallback: 0 }),
  REDIS_TLS: envBoolean(false),
  REDIS_CA_CERT: z.base64({ error: 'must be base64' }).optional(),

  MULTI_TENANT_ENABLED: envBoolean(false),

  HOST_SAFETY_ALLOWLIST: z.string().optional(),
  HOST_SAFETY_ALLOW_PRIVATE: envBoolean(true),

  DISPATCH_SWEEP_INTERVAL_SEC: envInteger({ min: 1, max: 86_400, fallback: 30 }),
  DISPATCH_SWEEP_MIN_AGE_SEC: envInteger({ min: 0, max: 86_400, fallback: 60 }),
  DISPATCH_MAX_ATTEMPTS: envInteger({ min: 1, max: 1_000, fallback: 10 }),

  DEPLOYMENT_MODE: z.enum(DEPLOYMENT_MODES, { error: 'must be local, saas or byoc' }).default('local'),
  READYZ_DRAIN_DELAY_SEC: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').default(12),
  ALLOW_INSECURE_TLS: envBoolean(false),

  ENABLE_TELEMETRY: envBoolean(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: envEndpointUrl(HTTP).optional(),
  OTEL_RESOURCE_SERVICE_VERSION: z.string().optional(),

  SWAGGER_TITLE: z.string().default('Fetcher Manager API'),
  SWAGGER_DESCRIPTION: z.string().default('Datasource connections and extraction jobs.'),
  SWAGGER_VERSION: z.string().optional(),
  SWAGGER_HOST: z.string().optional(),
  SWAGGER_BASE_PATH: z.string().optional(),
  SWAGGER_SCHEMES: z.string().optional(),

  MAX_PAGINATION_LIMIT: envInteger({ min: 1, max: 1_000_000, fallback: 100 }),
  MAX_PAGINATION_MONTH_DATE_RANGE: z.string().optional(),
});

export type ManagerEnv = z.infer<typeof MANAGER_ENV_SCHEMA>;

export interface RedisSettings {
  readonly host: string;
  readonly port: number;
  readonly password?: string;
  readonly db: number;
  readonly tls: boolean;
  readonly caCert?: string;
}

export interface ManagerConfig {
  readonly envName: string;
  readonly http: { readonly host?: string; readonly port: number };
  readonly version: string;
  readonly serviceVersion: string;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly keyRing: KeyRing;
  readonly schemaCache: { readonly ttlSeconds: number };
  readonly mongo: { readonly uri: string; readonly dbName: string; readonly tlsCaCert?: string };
  readonly amqp: { readonly url: string; readonly workQueue: string; readonly healthUrl?: string; readonly tls: boolean };
  readonly pluginAuth: { readonly enabled: boolean; readonly address?: string };
  /** Absent: the rate limiter and schema cache run in memory and readiness reports redis `skipped`. */
  readonly redis?: RedisSettings;
  /** Single-tenant: the fixed internal tenant that scopes every engine call. */
  readonly tenancy: { readonly multiTenant: false; readonly tenantId: 'default' };
  readonly hostSafety: { readonly allowlist: readonly string[]; readonly allowPrivate: boolean };
  readonly dispatch: { readonly sweepIntervalSec: number; readonly minAgeSec: number; readonly maxAttempts: number };
  readonly deploymentMode: (typeof DEPLOYMENT_MODES)[number];
  readonly drainDelaySec: number;
  readonly allowInsecureTls: boolean;
  readonly swagger: { readonly title: string; readonly description: string; readonly version: string };
  readonly pagination: { readonly maxLimit: number };
  readonly internalDatasources: readonly InternalDatasourceConfig[];
  /** Things worth a line in the startup log (deprecated or skipped settings). Never values. */
  readonly warnings: readonly string[];
}

export const MULTI_TENANT_UNAVAILABLE = 'MULTI_TENANT_ENABLED: multi-tenant mode is not available in this release';

/** Parses the Manager's environment once, at startup. Every problem is reported at once. */
export function loadManagerConfig(rawEnv: Readonly<Record<string, string | undefined>>): ManagerConfig {
  const env = Object.fromEntries(
    Object.entries(rawEnv).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== '').map(([k, v]) => [k, v.trim()]),
  );
  const parsed = MANAGER_ENV_SCHEMA.safeParse(env);
  const problems: string[] = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  const ring = parseKeyRingEnv({ APP_ENC_KEY: env.APP_ENC_KEY, APP_ENC_KEY_VERSION: env.APP_ENC_KEY_VERSION, APP_ENC_KEY_PREVIOUS: env.APP_ENC_KEY_PREVIOUS });
  if (!ring.ok) problems.push(...ring.problems.filter((p) => !(p.startsWith('APP_ENC_KEY:') && !env.APP_ENC_KEY)));
  const address = parseListenAddress(env.SERVER_ADDRESS ?? ':4006');
  if (!address) problems.push('SERVER_ADDRESS: must be [host]:port with a port from 1 to 65535');
  // Cross-variable rules read the raw values, so one run reports them with the per-variable ones.
  if (/^(true|t|1)$/i.test(env.MULTI_TENANT_ENABLED ?? '')) problems.push(MULTI_TENANT_UNAVAILABLE);
  pairRequired(problems, env.MONGO_USER, env.MONGO_PASSWORD, 'MONGO_USER', 'MONGO_PASSWORD');
  pairRequired(problems, env.RABBITMQ_DEFAULT_USER, env.RABBITMQ_DEFAULT_PASS, 'RABBITMQ_DEFAULT_USER', 'RABBITMQ_DEFAULT_PASS');
  const allowlist = (env.HOST_SAFETY_ALLOWLIST ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (invalidAllowlistEntries(allowlist).length > 0) problems.push('HOST_SAFETY_ALLOWLIST: every entry must be a hostname or a CIDR');
  if (env.DEPLOYMENT_MODE === 'saas') {
    if (!(env.MONGO_URI === 'mongodb+srv' || /(^|&)(tls|ssl)=true(&|$)/i.test(env.MONGO_PARAMETERS ?? ''))) {
      problems.push('MONGO_PARAMETERS: DEPLOYMENT_MODE=saas requires TLS to MongoDB (tls=true or mongodb+srv)');
    }
    if (env.RABBITMQ_URI !== 'amqps') problems.push('RABBITMQ_URI: DEPLOYMENT_MODE=saas requires amqps');
    if (env.REDIS_HOST && !/^(true|t|1)$/i.test(env.REDIS_TLS ?? '')) problems.push('REDIS_TLS: DEPLOYMENT_MODE=saas requires TLS to Redis');
  }
  if (!parsed.success || !ring.ok || !address || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;

  const datasources = readInternalDatasources(rawEnv);

  const warnings = [...datasources.warnings];
  if (e.MAX_PAGINATION_MONTH_DATE_RANGE !== undefined) {
    warnings.push('MAX_PAGINATION_MONTH_DATE_RANGE is deprecated and ignored: lists have no implicit date window');
  }
  if (e.PLUGIN_AUTH_ENABLED && !e.PLUGIN_AUTH_ADDRESS) warnings.push('PLUGIN_AUTH_ENABLED is true but PLUGIN_AUTH_ADDRESS is empty: authorization is off');
  const ttl = Number(e.SCHEMA_CACHE_TTL_SECONDS);
  const drain = e.READYZ_DRAIN_DELAY_SEC === 0 ? 12 : e.READYZ_DRAIN_DELAY_SEC < 0 ? 1 : e.READYZ_DRAIN_DELAY_SEC;

  return deepFreeze({
    envName: e.ENV_NAME,
    http: { ...address },
    version: e.VERSION,
    serviceVersion: e.OTEL_RESOURCE_SERVICE_VERSION ?? 'unknown',
    logLevel: e.LOG_LEVEL,
    keyRing: ring.ring,
    schemaCache: { ttlSeconds: Number.isInteger(ttl) && ttl > 0 ? ttl : 300 },
    mongo: {
      uri: mongoUri(e),
      dbName: e.MONGO_NAME.toLowerCase(),
      ...(e.MONGO_TLS_CA_CERT ? { tlsCaCert: Buffer.from(e.MONGO_TLS_CA_CERT, 'base64').toString('utf8') } : {}),
    },
    amqp: {
      url: amqpUrl({ scheme: e.RABBITMQ_URI, host: e.RABBITMQ_HOST, port: e.RABBITMQ_PORT_AMQP, user: e.RABBITMQ_DEFAULT_USER, password: e.RABBITMQ_DEFAULT_PASS }),
      workQueue: e.RABBITMQ_FETCHER_WORK_QUEUE,
      ...(e.RABBITMQ_HEALTH_CHECK_URL ? { healthUrl: e.RABBITMQ_HEALTH_CHECK_URL } : {}),
      tls: e.RABBITMQ_TLS,
    },
    pluginAuth: { enabled: e.PLUGIN_AUTH_ENABLED && e.PLUGIN_AUTH_ADDRESS !== undefined, ...(e.PLUGIN_AUTH_ADDRESS ? { address: e.PLUGIN_AUTH_ADDRESS } : {}) },
    ...(e.REDIS_HOST
      ? {
          redis: {
            host: e.REDIS_HOST,
            port: e.REDIS_PORT,
            ...(e.REDIS_PASSWORD ? { password: e.REDIS_PASSWORD } : {}),
            db: e.REDIS_DB,
            tls: e.REDIS_TLS,
            ...(e.REDIS_CA_CERT ? { caCert: Buffer.from(e.REDIS_CA_CERT, 'base64').toString('utf8') } : {}),
          },
        }
      : {}),
    tenancy: { multiTenant: false, tenantId: 'default' },
    hostSafety: { allowlist, allowPrivate: e.HOST_SAFETY_ALLOW_PRIVATE },
    dispatch: { sweepIntervalSec: e.DISPATCH_SWEEP_INTERVAL_SEC, minAgeSec: e.DISPATCH_SWEEP_MIN_AGE_SEC, maxAttempts: e.DISPATCH_MAX_ATTEMPTS },
    deploymentMode: e.DEPLOYMENT_MODE,
    drainDelaySec: drain,
    allowInsecureTls: e.ALLOW_INSECURE_TLS,
    swagger: { title: e.SWAGGER_TITLE, description: e.SWAGGER_DESCRIPTION, version: e.SWAGGER_VERSION ?? e.VERSION },
    pagination: { maxLimit: e.MAX_PAGINATION_LIMIT },
    internalDatasources: datasources.datasources,
    warnings,
  } satisfies ManagerConfig);
}

function pairRequired(problems: string[], a: string | undefined, b: string | undefined, nameA: string, nameB: string): void {
  if (a !== undefined && b === undefined) problems.push(`${nameB}: is required when ${nameA} is set`);
  if (a === undefined && b !== undefined) problems.push(`${nameA}: is required when ${nameB} is set`);
}

/** The connection string from its parts; credentials percent-encoded so they cannot change the host. */
function mongoUri(e: ManagerEnv): string {
  const auth = e.MONGO_USER ? `${encodeURIComponent(e.MONGO_USER)}:${encodeURIComponent(e.MONGO_PASSWORD ?? '')}@` : '';
  const port = e.MONGO_PORT ? `:${e.MONGO_PORT}` : '';
  const params = e.MONGO_PARAMETERS ? `/?${e.MONGO_PARAMETERS.replace(/^[/?]+/, '')}` : '/';
  return `${e.MONGO_URI}://${auth}${e.MONGO_HOST}${port}${params}`;
}

function deepFreeze<T>(value: T): T {
  // Plain objects and arrays only: class instances (the key ring) guard their own state.
  const plain = Array.isArray(value) || (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype);
  if (plain && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
