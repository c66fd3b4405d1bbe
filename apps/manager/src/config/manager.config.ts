import {
  MONGO_CREDENTIALS,
  MONGO_ENV,
  MONGO_ENV_EMBEDDED,
  mongoSettingsFrom,
  mongoTlsRequirement,
  multiTenantRequested,
  type MongoSettings,
  RABBITMQ_CREDENTIALS,
  RABBITMQ_ENV,
  rabbitmqSettingsFrom,
  rabbitmqTlsRequirement,
  readInternalDatasources,
  type InternalDatasourceSettings,
  telemetryEnv,
  telemetrySettingsFrom,
  TENANCY_ENV,
  TENANCY_TOKEN_ENV,
  tenancyChecks,
  tenancySettingsFrom,
  tenancyTlsRequirements,
  tenantTokenSettingsFrom,
  type MultiTenancy,
  type SingleTenancy,
  type TenantTokenSettings,
} from '@fetcher/contracts';
import { parseDatasourceType, sslModesFor, type DatasourceType } from '@fetcher/connectors';
import {
  ConfigError,
  ENVELOPE_MAX_AGE_SEC,
  ENVELOPE_MAX_FUTURE_SEC,
  type EnvCheck,
  envBool,
  envHostAllowlist,
  envInt,
  envUrl,
  isLoopbackHost,
  isNonProductionEnv,
  type KeyRing,
  pairCheck,
  parseEnv,
  parseKeyRingEnv,
  parseListenAddress,
  resolveDrainDelaySec,
  saasTlsProblems,
  withoutBlanks,
} from '@fetcher/platform';
import { z } from 'zod';
import type { TelemetrySettings } from '@fetcher/platform';

export const MANAGER_CONFIG = Symbol('ManagerConfig');

const DEPLOYMENT_MODES = ['local', 'saas', 'byoc'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const HTTP = { protocols: ['http', 'https'] } as const;
const port = (fallback?: number) => envInt({ min: 1, max: 65_535, ...(fallback === undefined ? {} : { default: fallback }) });

/**
 * Every variable the Manager reads. Blank values count as unset; messages name the variable and
 * the rule, never the value.
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

  ...MONGO_ENV,

  ...RABBITMQ_ENV,

  PLUGIN_AUTH_ENABLED: envBool(false),
  PLUGIN_AUTH_ADDRESS: envUrl(HTTP).optional(),

  REDIS_HOST: z.string().optional(),
  REDIS_PORT: port(6379),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_DB: envInt({ min: 0, max: 65_535, default: 0 }),
  REDIS_TLS: envBool(false),
  REDIS_CA_CERT: z.base64({ error: 'must be base64' }).optional(),

  ...TENANCY_ENV,
  ...TENANCY_TOKEN_ENV,

  HOST_SAFETY_ALLOWLIST: envHostAllowlist().optional(),
  HOST_SAFETY_ALLOW_PRIVATE: envBool(true),

  DISPATCH_SWEEP_INTERVAL_SEC: envInt({ min: 1, max: 86_400, default: 30 }),
  DISPATCH_SWEEP_MIN_AGE_SEC: envInt({ min: 0, max: 86_400, default: 60 }),
  DISPATCH_MAX_ATTEMPTS: envInt({ min: 1, max: 1_000, default: 10 }),
  // Below the message's validity plus the allowed clock skew, a re-dispatch could race a message still queued.
  DISPATCH_REDISPATCH_AFTER_SEC: envInt({ min: ENVELOPE_MAX_AGE_SEC + ENVELOPE_MAX_FUTURE_SEC, max: 86_400, default: 600 }),
  DISPATCH_MAX_REDISPATCHES: envInt({ min: 0, max: 100, default: 2 }),

  DEPLOYMENT_MODE: z.enum(DEPLOYMENT_MODES, { error: 'must be local, saas or byoc' }).default('local'),
  READYZ_DRAIN_DELAY_SEC: envInt().optional(),
  ALLOW_INSECURE_TLS: envBool(false),

  ...telemetryEnv('fetcher-manager'),

  SWAGGER_TITLE: z.string().default('Fetcher Manager API'),
  SWAGGER_DESCRIPTION: z.string().default('Datasource connections and extraction jobs.'),
  SWAGGER_VERSION: z.string().optional(),
  SWAGGER_HOST: z.string().optional(),
  SWAGGER_BASE_PATH: z.string().optional(),
  SWAGGER_SCHEMES: z.string().optional(),

  MAX_PAGINATION_LIMIT: envInt({ min: 1, max: 1_000_000, default: 100 }),
  MAX_PAGINATION_MONTH_DATE_RANGE: z.string().optional(),

  CONSOLE_ENABLED: envBool(true),
  CONSOLE_DIR: z.string().optional(),

  // GET /v1/fetcher/{id}/result: off unless asked for. Its storage settings are the Worker's variables,
  // checked only when it is on (resultStorageProblems): an env file shared with the Worker stays valid.
  RESULT_DOWNLOAD_ENABLED: envBool(false),
  OBJECT_STORAGE_ENDPOINT: z.string().optional(),
  OBJECT_STORAGE_REGION: z.string().default('us-east-1'),
  OBJECT_STORAGE_BUCKET: z.string().optional(),
  OBJECT_STORAGE_KEY_PREFIX: z.string().default(''),
  OBJECT_STORAGE_ACCESS_KEY_ID: z.string().optional(),
  OBJECT_STORAGE_SECRET_KEY: z.string().optional(),
  OBJECT_STORAGE_USE_PATH_STYLE: envBool(false),
});

/**
 * Infrastructure a host embeds in place of the production one, so its settings are not read:
 * `store` stands for MongoDB (the MONGO_* variables; `mongo` is then absent from the config),
 * `objectStorage` for S3 (the OBJECT_STORAGE_* variables; the host binds RESULT_READER itself).
 */
export interface ManagerSettingsOptions {
  readonly embedded?: { readonly store?: boolean; readonly objectStorage?: boolean };
}

/** Rules across variables; they see the environment with blanks removed. */
const checks = (embeddedStore: boolean, embeddedObjects: boolean): readonly EnvCheck[] => [
  pairCheck(MONGO_CREDENTIALS, RABBITMQ_CREDENTIALS),
  (env) => (downloadsFromS3(env, embeddedObjects) ? resultStorageProblems(env) : []),
  (env) => {
    const ring = parseKeyRingEnv({ APP_ENC_KEY: env.APP_ENC_KEY, APP_ENC_KEY_VERSION: env.APP_ENC_KEY_VERSION, APP_ENC_KEY_PREVIOUS: env.APP_ENC_KEY_PREVIOUS });
    // A missing APP_ENC_KEY is already reported by the schema.
    return ring.ok || env.APP_ENC_KEY === undefined ? [] : ring.problems.map(asProblem);
  },
  tenancyChecks({ tokens: true }),
  (env) => (parseListenAddress(env.SERVER_ADDRESS ?? ':4006') ? [] : [{ variable: 'SERVER_ADDRESS', message: 'must be [host]:port or a bare port, from 1 to 65535' }]),
  (env) =>
    saasTlsProblems(env.DEPLOYMENT_MODE, [
      // Multi-tenant mode reads each tenant's database and broker from the tenant-manager: the shared settings are unused.
      mongoTlsRequirement(env, !embeddedStore && !multiTenantRequested(env)),
      rabbitmqTlsRequirement(env, !multiTenantRequested(env)),
      { variable: 'REDIS_TLS', configured: env.REDIS_HOST !== undefined, tls: /^(true|t|1)$/i.test(env.REDIS_TLS ?? '') },
      { variable: 'PLUGIN_AUTH_ADDRESS', configured: env.PLUGIN_AUTH_ADDRESS !== undefined, tls: (env.PLUGIN_AUTH_ADDRESS ?? '').startsWith('https:') },
      ...tenancyTlsRequirements(env),
      {
        variable: 'OBJECT_STORAGE_ENDPOINT',
        configured: downloadsFromS3(env, embeddedObjects) && env.OBJECT_STORAGE_ENDPOINT !== undefined,
        tls: (env.OBJECT_STORAGE_ENDPOINT ?? '').startsWith('https:'),
      },
    ]),
];

/** Whether the OBJECT_STORAGE_* variables are read: the result route is on and the host embeds no object storage. */
function downloadsFromS3(env: Readonly<Record<string, string | undefined>>, embeddedObjects: boolean): boolean {
  return !embeddedObjects && /^(true|t|1)$/i.test(env.RESULT_DOWNLOAD_ENABLED ?? '');
}

/** The Worker's rules for the same variables: a bucket, both keys or neither, https outside development. */
function resultStorageProblems(env: Readonly<Record<string, string | undefined>>): { variable: string; message: string }[] {
  const problems: { variable: string; message: string }[] = [];
  if (env.OBJECT_STORAGE_BUCKET === undefined) problems.push({ variable: 'OBJECT_STORAGE_BUCKET', message: 'is required when RESULT_DOWNLOAD_ENABLED is true' });
  if ((env.OBJECT_STORAGE_ACCESS_KEY_ID === undefined) !== (env.OBJECT_STORAGE_SECRET_KEY === undefined)) {
    problems.push({ variable: 'OBJECT_STORAGE_ACCESS_KEY_ID', message: 'must be set together with OBJECT_STORAGE_SECRET_KEY' });
  }
  const endpoint = env.OBJECT_STORAGE_ENDPOINT;
  if (endpoint === undefined) return problems;
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    problems.push({ variable: 'OBJECT_STORAGE_ENDPOINT', message: 'must be an http(s) URL without credentials' });
  } else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !isNonProductionEnv(env.ENV_NAME) && !/^(true|t|1)$/i.test(env.ALLOW_INSECURE_TLS ?? '')) {
    problems.push({ variable: 'OBJECT_STORAGE_ENDPOINT', message: 'must use https outside development (or set ALLOW_INSECURE_TLS=true)' });
  }
  return problems;
}

/** `VARIABLE: rule` from the key ring's problem text. */
function asProblem(text: string): { variable: string; message: string } {
  const colon = text.indexOf(':');
  return { variable: text.slice(0, colon), message: text.slice(colon + 1).trim() };
}

export type ManagerEnv = z.infer<typeof MANAGER_ENV_SCHEMA>;

export interface RedisSettings {
  readonly host: string;
  readonly port: number;
  readonly password?: string;
  readonly db: number;
  readonly tls: boolean;
  readonly caCert?: string;
}

export type { MongoSettings };

/** Where the Worker's results are, as the Worker reads the same OBJECT_STORAGE_* variables. */
export interface ObjectStorageSettings {
  readonly bucket: string;
  readonly region: string;
  readonly endpoint?: string;
  readonly keyPrefix: string;
  readonly forcePathStyle: boolean;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** An operator-configured datasource (`DATASOURCE_<X>_*`), as both services read it. */
export type InternalDatasourceConfig = InternalDatasourceSettings<DatasourceType>;

export interface ManagerConfig {
  readonly envName: string;
  readonly http: { readonly host?: string; readonly port: number };
  readonly version: string;
  readonly serviceVersion: string;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly keyRing: KeyRing;
  readonly schemaCache: { readonly ttlSeconds: number };
  /** Absent when a host embeds the store (`loadManagerConfig(env, { embedded: { store: true } })`). */
  readonly mongo?: MongoSettings;
  readonly amqp: { readonly url: string; readonly workQueue: string; readonly healthUrl?: string; readonly tls: boolean };
  readonly pluginAuth: { readonly enabled: boolean; readonly address?: string };
  /** Absent: the rate limiter and schema cache run in memory and readiness reports redis `skipped`. */
  readonly redis?: RedisSettings;
  /**
   * Single-tenant: the fixed internal tenant that scopes every engine call. Multi-tenant: where
   * tenants come from, and how their tokens are verified; the tenant of a request is then only ever
   * the one its verified token names.
   */
  readonly tenancy: ManagerTenancy;
  readonly hostSafety: { readonly allowlist: readonly string[]; readonly allowPrivate: boolean };
  readonly dispatch: {
    readonly sweepIntervalSec: number;
    readonly minAgeSec: number;
    readonly maxAttempts: number;
    readonly redispatchAfterSec: number;
    readonly maxRedispatches: number;
  };
  readonly deploymentMode: (typeof DEPLOYMENT_MODES)[number];
  readonly drainDelaySec: number;
  readonly allowInsecureTls: boolean;
  /** `ENABLE_TELEMETRY` and the `OTEL_*` resource and exporter settings. */
  readonly telemetry: TelemetrySettings;
  readonly swagger: { readonly title: string; readonly description: string; readonly version: string };
  readonly pagination: { readonly maxLimit: number };
  /** The operator console under /console: on by default; `dir` overrides where its built files are. */
  readonly console: { readonly enabled: boolean; readonly dir?: string };
  /**
   * `GET /v1/fetcher/{id}/result` (RESULT_DOWNLOAD_ENABLED, off by default): not registered at all
   * when off. `storage` is absent when the host embeds the object storage and binds RESULT_READER.
   */
  readonly resultDownload: { readonly enabled: boolean; readonly storage?: ObjectStorageSettings };
  readonly internalDatasources: readonly InternalDatasourceConfig[];
  /** Things worth a line in the startup log (deprecated or skipped settings). Never values. */
  readonly warnings: readonly string[];
}

/** Multi-tenant mode as the Manager sees it: the shared settings plus token verification. */
export interface ManagerMultiTenancy extends MultiTenancy {
  readonly tokens: TenantTokenSettings;
}

export type ManagerTenancy = SingleTenancy | ManagerMultiTenancy;

/** The schema when a host embeds the store: the MongoDB database name is not asked for. */
const EMBEDDED_STORE_SCHEMA = MANAGER_ENV_SCHEMA.extend(MONGO_ENV_EMBEDDED);

/**
 * Parses the Manager's environment once, at startup. Every problem is reported at once. A host that
 * embeds the store says so in `options`, and the MongoDB settings are neither required nor read.
 */
export function loadManagerConfig(rawEnv: Readonly<Record<string, string | undefined>>, options: ManagerSettingsOptions = {}): ManagerConfig {
  const embeddedStore = options.embedded?.store === true;
  const embeddedObjects = options.embedded?.objectStorage === true;
  const e = parseEnv(embeddedStore ? EMBEDDED_STORE_SCHEMA : MANAGER_ENV_SCHEMA, rawEnv, checks(embeddedStore, embeddedObjects));
  const env = withoutBlanks(rawEnv);
  const ring = parseKeyRingEnv({ APP_ENC_KEY: env.APP_ENC_KEY, APP_ENC_KEY_VERSION: env.APP_ENC_KEY_VERSION, APP_ENC_KEY_PREVIOUS: env.APP_ENC_KEY_PREVIOUS });
  const address = parseListenAddress(e.SERVER_ADDRESS);
  // Both were checked by CHECKS; this only narrows the types.
  if (!ring.ok || !address) throw new ConfigError(['APP_ENC_KEY: invalid key ring']);
  const datasources = readInternalDatasources(rawEnv, { parseType: parseDatasourceType, sslModesFor });

  const warnings = [...datasources.warnings];
  if (e.MAX_PAGINATION_MONTH_DATE_RANGE !== undefined) {
    warnings.push('MAX_PAGINATION_MONTH_DATE_RANGE is deprecated and ignored: lists have no implicit date window');
  }
  if (e.PLUGIN_AUTH_ENABLED && !e.PLUGIN_AUTH_ADDRESS) warnings.push('PLUGIN_AUTH_ENABLED is true but PLUGIN_AUTH_ADDRESS is empty: authorization is off');
  const ttl = Number(e.SCHEMA_CACHE_TTL_SECONDS);
  const tenancy = tenancySettingsFrom(e, e.ENV_NAME);

  return deepFreeze({
    envName: e.ENV_NAME,
    http: { ...address },
    version: e.VERSION,
    serviceVersion: e.OTEL_RESOURCE_SERVICE_VERSION ?? 'unknown',
    logLevel: e.LOG_LEVEL,
    keyRing: ring.ring,
    schemaCache: { ttlSeconds: Number.isInteger(ttl) && ttl > 0 ? ttl : 300 },
    ...(embeddedStore ? {} : optional('mongo', mongoSettingsFrom(e))),
    amqp: rabbitmqSettingsFrom(e),
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
    tenancy: tenancy.multiTenant ? { ...tenancy, tokens: tenantTokenSettingsFrom(e) } : tenancy,
    // Multi-tenant: a tenant's connection never reaches the deployment's private network (the allowlist still applies).
    hostSafety: { allowlist: [...(e.HOST_SAFETY_ALLOWLIST ?? [])], allowPrivate: e.HOST_SAFETY_ALLOW_PRIVATE && !tenancy.multiTenant },
    dispatch: {
      sweepIntervalSec: e.DISPATCH_SWEEP_INTERVAL_SEC,
      minAgeSec: e.DISPATCH_SWEEP_MIN_AGE_SEC,
      maxAttempts: e.DISPATCH_MAX_ATTEMPTS,
      redispatchAfterSec: e.DISPATCH_REDISPATCH_AFTER_SEC,
      maxRedispatches: e.DISPATCH_MAX_REDISPATCHES,
    },
    deploymentMode: e.DEPLOYMENT_MODE,
    drainDelaySec: resolveDrainDelaySec(e.READYZ_DRAIN_DELAY_SEC),
    allowInsecureTls: e.ALLOW_INSECURE_TLS,
    telemetry: telemetrySettingsFrom(e, e.ENV_NAME),
    swagger: { title: e.SWAGGER_TITLE, description: e.SWAGGER_DESCRIPTION, version: e.SWAGGER_VERSION ?? e.VERSION },
    pagination: { maxLimit: e.MAX_PAGINATION_LIMIT },
    console: { enabled: e.CONSOLE_ENABLED, ...(e.CONSOLE_DIR ? { dir: e.CONSOLE_DIR } : {}) },
    resultDownload: {
      enabled: e.RESULT_DOWNLOAD_ENABLED,
      ...(e.RESULT_DOWNLOAD_ENABLED && !embeddedObjects && e.OBJECT_STORAGE_BUCKET !== undefined
        ? {
            storage: {
              bucket: e.OBJECT_STORAGE_BUCKET,
              region: e.OBJECT_STORAGE_REGION,
              ...(e.OBJECT_STORAGE_ENDPOINT ? { endpoint: e.OBJECT_STORAGE_ENDPOINT } : {}),
              keyPrefix: e.OBJECT_STORAGE_KEY_PREFIX,
              forcePathStyle: e.OBJECT_STORAGE_USE_PATH_STYLE,
              ...(e.OBJECT_STORAGE_ACCESS_KEY_ID && e.OBJECT_STORAGE_SECRET_KEY
                ? { credentials: { accessKeyId: e.OBJECT_STORAGE_ACCESS_KEY_ID, secretAccessKey: e.OBJECT_STORAGE_SECRET_KEY } }
                : {}),
            },
          }
        : {}),
    },
    internalDatasources: datasources.datasources,
    warnings,
  } satisfies ManagerConfig);
}

/** The MongoDB settings, for the production adapters; a config loaded for an embedded store has none. */
export function mongoSettings(config: ManagerConfig): MongoSettings {
  if (!config.mongo) throw new ConfigError(['MONGO_NAME: is required (this Manager was configured for an embedded store)']);
  return config.mongo;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
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
