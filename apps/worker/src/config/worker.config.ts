import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseDatasourceType, sslModesFor } from '@fetcher/connectors';
import {
  type InternalDatasourceSettings,
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
  telemetryEnv,
  telemetrySettingsFrom,
  TENANCY_ENV,
  TENANCY_WORKER_ENV,
  tenancyChecks,
  tenancySettingsFrom,
  tenancyTlsRequirements,
  type MultiTenancy,
  type SingleTenancy,
} from '@fetcher/contracts';
import {
  ConfigError,
  type EnvCheck,
  type EnvProblem,
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
  resolveDrainDelaySec,
  saasTlsProblems,
  urlUsesTls,
  withoutBlanks,
} from '@fetcher/platform';
import { z } from 'zod';
import type { TelemetrySettings } from '@fetcher/platform';
import { MAX_IN_MEMORY_RESULT_KIB, MAX_MULTIPART_THRESHOLD_MIB } from '../jobs/result/result-uploader';

export const WORKER_CONFIG = Symbol('WorkerConfig');

const DEPLOYMENT_MODES = ['local', 'saas', 'byoc'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const HTTP = ['http', 'https'];

/** A value outside (0, 65535] or not a number means the default, as the original service did. */
const lenientPort = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw) => {
      const port = raw === undefined ? NaN : Number(raw);
      return Number.isInteger(port) && port > 0 && port <= 65_535 ? port : fallback;
    });

/**
 * Every variable the Worker reads. Blank values count as unset; messages name the variable and the
 * rule, never the value.
 */
export const WORKER_ENV_SCHEMA = z.object({
  ENV_NAME: z.string().optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  VERSION: z.string().default('0.0.0'),

  APP_ENC_KEY: z.string({ error: 'is required' }),
  APP_ENC_KEY_VERSION: z.string().optional(),
  APP_ENC_KEY_PREVIOUS: z.string().optional(),

  ...RABBITMQ_ENV,
  RABBITMQ_NUMBERS_OF_WORKERS: z
    .string()
    .optional()
    .transform((raw) => {
      const n = raw === undefined ? NaN : Number(raw);
      return Number.isInteger(n) && n > 0 ? n : 5; // unset or <= 0 means 5
    }),
  RABBITMQ_JOB_EVENTS_EXCHANGE: z.string({ error: 'is required' }),
  RABBITMQ_DECLARE_TOPOLOGY: envBool(true),
  RABBITMQ_ALLOW_LEGACY_BODY_SIGNATURE_FALLBACK: envBool(false),

  STREAMING_ENABLED: z.string().optional(),
  STREAMING_CLOUDEVENTS_SOURCE: z.string().default('//lerian.fetcher/worker'),

  OBJECT_STORAGE_ENDPOINT: envUrl({ protocols: HTTP }).optional(),
  OBJECT_STORAGE_REGION: z.string().default('us-east-1'),
  OBJECT_STORAGE_BUCKET: z.string({ error: 'is required' }),
  OBJECT_STORAGE_KEY_PREFIX: z.string().default(''),
  OBJECT_STORAGE_ACCESS_KEY_ID: z.string().optional(),
  OBJECT_STORAGE_SECRET_KEY: z.string().optional(),
  OBJECT_STORAGE_USE_PATH_STYLE: envBool(false),
  OBJECT_STORAGE_TTL: z.string().optional(),
  OBJECT_STORAGE_MULTIPART_THRESHOLD_MB: envInt({ min: 8, max: MAX_MULTIPART_THRESHOLD_MIB, default: 8 }),
  RESULT_SPOOL_DIR: z.string().default(join(tmpdir(), 'fetcher-spool')),
  RESULT_IN_MEMORY_MAX_KB: envInt({ min: 0, max: MAX_IN_MEMORY_RESULT_KIB, default: 1024 }),

  ...MONGO_ENV,
  MONGO_MAX_POOL_SIZE: envInt({ min: 1, max: 10_000, default: 100 }),

  ENGINE_MAX_RESULT_BYTES: envInt({ min: 0, default: 268_435_456 }),
  JOB_LEASE_TTL_SEC: envInt({ min: 1, max: 86_400, default: 60 }),
  JOB_LEASE_REAPER_INTERVAL_SEC: envInt({ min: 1, max: 86_400, default: 60 }),
  // With the defaults the retries span about a minute, well inside the message's 5-minute validity.
  JOB_RETRY_MAX: envInt({ min: 0, max: 20, default: 5 }),
  JOB_RETRY_BASE_DELAY_MS: envInt({ min: 0, max: 60_000, default: 2_000 }),
  HOST_SAFETY_ALLOWLIST: envHostAllowlist().optional(),
  HOST_SAFETY_ALLOW_PRIVATE: envBool(true),
  // Datasource connectors kept between jobs of the same connection (0 = every job dials its own).
  CONNECTION_REUSE_IDLE_MS: envInt({ min: 0, max: 3_600_000, default: 30_000 }),
  CONNECTION_REUSE_MAX_IDLE: envInt({ min: 0, max: 10_000, default: 32 }),

  ...TENANCY_ENV,
  ...TENANCY_WORKER_ENV,

  DEPLOYMENT_MODE: z.enum(DEPLOYMENT_MODES, { error: 'must be local, saas or byoc' }).default('local'),
  ALLOW_INSECURE_TLS: envBool(false),
  HEALTH_PORT: lenientPort(4007),
  READYZ_DRAIN_DELAY_SEC: z
    .string()
    .optional()
    // Lenient like the original service: a non-numeric value counts as unset.
    .transform((raw) => {
      const n = raw === undefined ? NaN : Number(raw);
      return resolveDrainDelaySec(Number.isFinite(n) ? n : undefined);
    }),

  ...telemetryEnv('fetcher-worker'),
});

type WorkerEnv = z.output<typeof WORKER_ENV_SCHEMA>;

/**
 * Infrastructure a host embeds in place of the production one, so its settings are not read:
 * `store` stands for MongoDB (MONGO_*; `mongo` is then absent), `objectStorage` for S3
 * (OBJECT_STORAGE_BUCKET is then not asked for, and `storage.bucket` and `storage.endpoint` are absent).
 */
export interface WorkerSettingsOptions {
  readonly embedded?: { readonly store?: boolean; readonly objectStorage?: boolean };
}

/** Refusals that involve several variables or the deployment, checked before anything connects. */
const checks = (embeddedStore: boolean, embeddedStorage: boolean): readonly EnvCheck[] => [
  pairCheck(['OBJECT_STORAGE_ACCESS_KEY_ID', 'OBJECT_STORAGE_SECRET_KEY'], MONGO_CREDENTIALS, RABBITMQ_CREDENTIALS),
  (env) => (env.STREAMING_ENABLED?.toLowerCase() === 'true' ? [] : [{ variable: 'STREAMING_ENABLED', message: 'STREAMING_ENABLED=true is required for mandatory job event notifications' }]),
  tenancyChecks({ tokens: false }),
  (env) =>
    saasTlsProblems(env.DEPLOYMENT_MODE, [
      // Multi-tenant mode reads each tenant's database and broker from the tenant-manager: the shared settings are unused.
      mongoTlsRequirement(env, !embeddedStore && !multiTenantRequested(env)),
      rabbitmqTlsRequirement(env, !multiTenantRequested(env)),
      { variable: 'OBJECT_STORAGE_ENDPOINT', configured: !embeddedStorage && env.OBJECT_STORAGE_ENDPOINT !== undefined, tls: urlUsesTls(env.OBJECT_STORAGE_ENDPOINT) },
      ...tenancyTlsRequirements(env),
    ]),
  (env) => (embeddedStorage ? [] : plainHttpStorage(env)),
  (env) => {
    const ring = parseKeyRingEnv(env);
    return ring.ok ? [] : ring.problems.map(toProblem);
  },
];

/** Plain HTTP object storage is for local development: loopback hosts, non-production, or an explicit opt-in. */
function plainHttpStorage(env: Readonly<Record<string, string | undefined>>): EnvProblem[] {
  const endpoint = env.OBJECT_STORAGE_ENDPOINT;
  if (!endpoint || isNonProductionEnv(env.ENV_NAME) || ['true', '1', 't'].includes(env.ALLOW_INSECURE_TLS?.toLowerCase() ?? '')) return [];
  try {
    const url = new URL(endpoint);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      return [{ variable: 'OBJECT_STORAGE_ENDPOINT', message: 'must use https outside development (or set ALLOW_INSECURE_TLS=true)' }];
    }
  } catch {
    // The schema reports an unparseable URL.
  }
  return [];
}

function toProblem(text: string): EnvProblem {
  const colon = text.indexOf(':');
  return { variable: text.slice(0, colon), message: text.slice(colon + 1).trim() };
}

/** Where MongoDB is (read as the Manager reads it) and the Worker's pool size. */
export interface WorkerMongoSettings extends MongoSettings {
  readonly maxPoolSize: number;
}

/** An operator-configured datasource (`DATASOURCE_<X>_*`), as both services read it. */
export type InternalDatasource = InternalDatasourceSettings;

export interface WorkerConfig {
  readonly envName: string | undefined;
  readonly version: string;
  /** The `version` of the readiness body: `OTEL_RESOURCE_SERVICE_VERSION`, or `unknown`. */
  readonly serviceVersion: string;
  readonly logLevel: WorkerEnv['LOG_LEVEL'];
  readonly deploymentMode: WorkerEnv['DEPLOYMENT_MODE'];
  readonly health: { readonly port: number; readonly drainDelaySec: number };
  /** `ENABLE_TELEMETRY` and the `OTEL_*` resource and exporter settings. */
  readonly telemetry: TelemetrySettings;
  readonly ring: KeyRing;
  readonly amqp: {
    readonly url: string;
    readonly tls: boolean;
    readonly workQueue: string;
    readonly eventsExchange: string;
    readonly concurrency: number;
    readonly declareTopology: boolean;
    readonly allowLegacyBodySignature: boolean;
  };
  readonly events: { readonly source: string };
  readonly storage: {
    readonly endpoint?: string;
    readonly region: string;
    /** Absent when a host embeds the object storage. */
    readonly bucket?: string;
    readonly keyPrefix: string;
    readonly forcePathStyle: boolean;
    readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
    readonly spoolDir: string;
    readonly ttl?: string;
    /** Results up to this size are one PutObject at the end; larger ones upload parts during the extraction. */
    readonly multipartThresholdBytes: number;
    /** Stored results up to this size stay in memory, with no spool file; 0: always the spool file. */
    readonly inMemoryResultBytes: number;
  };
  /** Absent when a host embeds the store. */
  readonly mongo?: WorkerMongoSettings;
  readonly jobs: {
    readonly leaseTtlMs: number;
    readonly reaperIntervalMs: number;
    readonly maxResultBytes?: number;
    readonly leaseOwner: string;
    /** Retries of a delivery whose infrastructure failed before its job was settled, and the first wait. */
    readonly retryMax: number;
    readonly retryBaseDelayMs: number;
  };
  readonly hostSafety: { readonly allowPrivate: boolean; readonly allowlist: readonly string[] };
  /** Idle datasource connectors kept for the next job of the same connection; `idleMs` 0 turns it off. */
  readonly connectionReuse: { readonly idleMs: number; readonly maxIdle: number };
  /** Single-tenant: one fixed internal tenant. Multi-tenant: the tenant-manager, events and pools, and the reconciler's tick. */
  readonly tenancy: WorkerTenancy;
  readonly internalDatasources: readonly InternalDatasource[];
  /** Internal datasource groups left out (their names only), for one warning at startup. */
  readonly skippedDatasources: readonly string[];
}

/** Multi-tenant mode as the Worker sees it: the shared settings plus the consumer reconciler's interval. */
export interface WorkerMultiTenancy extends MultiTenancy {
  readonly reconcileIntervalSec: number;
}

export type WorkerTenancy = SingleTenancy | WorkerMultiTenancy;

/** Every variable may be absent in some mode; the parsed type says so. */
const EMBEDDABLE_SCHEMA = WORKER_ENV_SCHEMA.extend({
  ...MONGO_ENV_EMBEDDED,
  OBJECT_STORAGE_BUCKET: z.string().optional(),
  OBJECT_STORAGE_ENDPOINT: z.string().optional(),
});

/** The schema for what the Worker connects to: an embedded store or storage's settings are not asked for. */
function schemaFor(embeddedStore: boolean, embeddedStorage: boolean): typeof EMBEDDABLE_SCHEMA {
  if (embeddedStore && embeddedStorage) return EMBEDDABLE_SCHEMA;
  const { shape } = WORKER_ENV_SCHEMA;
  return WORKER_ENV_SCHEMA.extend({
    MONGO_NAME: embeddedStore ? MONGO_ENV_EMBEDDED.MONGO_NAME : shape.MONGO_NAME,
    OBJECT_STORAGE_BUCKET: embeddedStorage ? z.string().optional() : shape.OBJECT_STORAGE_BUCKET,
    OBJECT_STORAGE_ENDPOINT: embeddedStorage ? z.string().optional() : shape.OBJECT_STORAGE_ENDPOINT,
  }) as unknown as typeof EMBEDDABLE_SCHEMA;
}

/**
 * Parses the Worker's environment once, at startup; throws ConfigError naming every bad variable. A
 * host that embeds the store or the object storage says so in `options`, and their settings are
 * neither required nor read.
 */
export function loadWorkerConfig(env: Readonly<Record<string, string | undefined>>, options: WorkerSettingsOptions = {}): WorkerConfig {
  const embeddedStore = options.embedded?.store === true;
  const embeddedStorage = options.embedded?.objectStorage === true;
  const schema = schemaFor(embeddedStore, embeddedStorage);
  const e = parseEnv(schema, env, checks(embeddedStore, embeddedStorage));
  const keyRing = parseKeyRingEnv(env);
  if (!keyRing.ok) throw new ConfigError(keyRing.problems); // already reported by CHECKS; keeps the type narrow
  const { datasources, skipped } = readInternalDatasources(withoutBlanks(env), { parseType: parseDatasourceType, sslModesFor });
  const amqp = rabbitmqSettingsFrom(e);
  const tenancy = tenancySettingsFrom(e, e.ENV_NAME);
  const mongo = embeddedStore ? undefined : mongoSettingsFrom(e);
  const credentials =
    e.OBJECT_STORAGE_ACCESS_KEY_ID && e.OBJECT_STORAGE_SECRET_KEY
      ? { accessKeyId: e.OBJECT_STORAGE_ACCESS_KEY_ID, secretAccessKey: e.OBJECT_STORAGE_SECRET_KEY }
      : undefined;
  return Object.freeze({
    envName: e.ENV_NAME,
    version: e.VERSION,
    serviceVersion: e.OTEL_RESOURCE_SERVICE_VERSION ?? 'unknown',
    logLevel: e.LOG_LEVEL,
    deploymentMode: e.DEPLOYMENT_MODE,
    health: { port: e.HEALTH_PORT, drainDelaySec: e.READYZ_DRAIN_DELAY_SEC },
    telemetry: Object.freeze(telemetrySettingsFrom(e, e.ENV_NAME)),
    ring: keyRing.ring,
    amqp: {
      url: amqp.url,
      tls: amqp.tls,
      workQueue: amqp.workQueue,
      eventsExchange: e.RABBITMQ_JOB_EVENTS_EXCHANGE,
      concurrency: e.RABBITMQ_NUMBERS_OF_WORKERS,
      declareTopology: e.RABBITMQ_DECLARE_TOPOLOGY,
      allowLegacyBodySignature: e.RABBITMQ_ALLOW_LEGACY_BODY_SIGNATURE_FALLBACK,
    },
    events: { source: e.STREAMING_CLOUDEVENTS_SOURCE },
    storage: {
      ...(e.OBJECT_STORAGE_ENDPOINT && !embeddedStorage ? { endpoint: e.OBJECT_STORAGE_ENDPOINT } : {}),
      region: e.OBJECT_STORAGE_REGION,
      ...(embeddedStorage || e.OBJECT_STORAGE_BUCKET === undefined ? {} : { bucket: e.OBJECT_STORAGE_BUCKET }),
      keyPrefix: e.OBJECT_STORAGE_KEY_PREFIX,
      forcePathStyle: e.OBJECT_STORAGE_USE_PATH_STYLE,
      ...(credentials ? { credentials } : {}),
      spoolDir: e.RESULT_SPOOL_DIR,
      ...(e.OBJECT_STORAGE_TTL ? { ttl: e.OBJECT_STORAGE_TTL } : {}),
      multipartThresholdBytes: e.OBJECT_STORAGE_MULTIPART_THRESHOLD_MB * 1024 * 1024,
      inMemoryResultBytes: e.RESULT_IN_MEMORY_MAX_KB * 1024,
    },
    ...(mongo ? { mongo: { ...mongo, maxPoolSize: e.MONGO_MAX_POOL_SIZE } } : {}),
    jobs: {
      leaseTtlMs: e.JOB_LEASE_TTL_SEC * 1000,
      reaperIntervalMs: e.JOB_LEASE_REAPER_INTERVAL_SEC * 1000,
      ...(e.ENGINE_MAX_RESULT_BYTES > 0 ? { maxResultBytes: e.ENGINE_MAX_RESULT_BYTES } : {}),
      leaseOwner: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      retryMax: e.JOB_RETRY_MAX,
      retryBaseDelayMs: e.JOB_RETRY_BASE_DELAY_MS,
    },
    hostSafety: { allowPrivate: e.HOST_SAFETY_ALLOW_PRIVATE, allowlist: e.HOST_SAFETY_ALLOWLIST ?? [] },
    connectionReuse: { idleMs: e.CONNECTION_REUSE_IDLE_MS, maxIdle: e.CONNECTION_REUSE_MAX_IDLE },
    tenancy: tenancy.multiTenant ? { ...tenancy, reconcileIntervalSec: e.MULTI_TENANT_RECONCILE_INTERVAL_SEC } : tenancy,
    internalDatasources: datasources,
    skippedDatasources: skipped,
  });
}

/** The MongoDB settings, for the production adapters; a config loaded for an embedded store has none. */
export function workerMongoSettings(config: WorkerConfig): WorkerMongoSettings {
  if (!config.mongo) throw new ConfigError(['MONGO_NAME: is required (this Worker was configured for an embedded store)']);
  return config.mongo;
}

/** The S3 bucket, for the production result store; a config loaded for embedded object storage has none. */
export function storageBucket(config: WorkerConfig): string {
  if (config.storage.bucket === undefined) throw new ConfigError(['OBJECT_STORAGE_BUCKET: is required (this Worker was configured for embedded object storage)']);
  return config.storage.bucket;
}
