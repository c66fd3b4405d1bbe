// Small infrastructure both apps use today. No business rules here: those belong to the engine.

// Configuration
export { ConfigError } from './config/config-error';
export { envReader } from './config/env-reader';
export { listenNamingVariable, parseListenAddress } from './config/listen-address';
export { loadDotEnvIfLocal, type DotEnvOptions } from './config/dot-env';
export {
  isLoopbackHost, isNonProductionEnv, mongoUriFromEnv, mongoUsesTls, pairCheck, saasTlsProblems, urlUsesTls,
  type MongoEnv, type TlsRequirement,
} from './config/env-rules';
export {
  envBool, envHostAllowlist, envInt, envList, envUrl, isAllowlistEntry, urlProblem, type EnvIntOptions, type EnvUrlOptions,
} from './config/env-types';
export { parseEnv, withoutBlanks, type DeepReadonly, type EnvCheck, type EnvProblem, type EnvSnapshot } from './config/parse-env';

// Crypto and keys
export { openEnvelope, sealEnvelope } from './crypto/aead-envelope';
export { canonicalJson, sha256Hex } from './crypto/canonical-json';
export {
  ENVELOPE_HEADERS, ENVELOPE_MAX_AGE_SEC, ENVELOPE_MAX_FUTURE_SEC, envelopeHeaders, jobIdOfBody, signEnvelope, verifyEnvelope,
  type EnvelopeHeadersInput, type EnvelopeRejection, type SignEnvelopeInput, type VerifyEnvelopeInput, type VerifyEnvelopeResult,
} from './crypto/hmac-envelope';
export { KeyRing, type KeyRingOptions, type VersionedKey } from './crypto/key-ring';
export { parseKeyRingEnv, type KeyRingEnv, type KeyRingEnvResult } from './crypto/key-ring-env';
export { KeyRingError, type KeyRingErrorReason } from './crypto/key-ring-error';
export { decryptResult, hmacMatches, ResultIntegrityError, type DecryptedResult } from './crypto/result-decryption';
export { deriveSubKeys, hideKeyMaterial, MIN_MASTER_KEY_BYTES, SUB_KEY_INFO, type SubKeys } from './crypto/sub-keys';

// AMQP
export { amqpUrl, type AmqpUrlParts } from './amqp/amqp-url';
export {
  assertFetcherTopology, checkWorkQueue, FETCHER_TOPOLOGY, TopologyError, type FetcherTopologyOptions, type TopologyChannel,
} from './amqp/topology';

// Readiness, health, metrics, drain
export { PlatformModule } from './platform.module';
export { PLATFORM_OPTIONS, type DeploymentMode, type PlatformOptions } from './readiness/platform-options';
export {
  PROBES, TENANT_READINESS, type BreakerState, type CheckResult, type ProbeResult, type ProbeStatus, type ReadinessProbe,
  type TenantProbeResolution, type TenantReadiness,
} from './readiness/probe';
export { amqpProbe, mongoProbe, redisProbe, staticProbe, type AmqpState, type MongoPingTarget, type ProbeOptions } from './readiness/probes';
export { CHECK_DETAIL, probeIndicator, type ProbeIndicatorResult } from './readiness/probe-indicator';
export { drainAnswer, readinessAnswer, type ReadinessMeta, type SystemAnswer } from './readiness/readiness-body';
export { ReadinessChecks } from './readiness/readiness-checks';
export { Readiness } from './readiness/readiness.service';
export { isPassing, runProbe, type CheckObserver } from './readiness/run-probe';
export { errorText, MAX_CHECK_ERROR_CHARS, sanitizeCheckError } from './readiness/sanitize';
export { CircuitBreaker, CircuitOpenError, type CircuitBreakerOptions } from './readiness/circuit-breaker';
export { Lifecycle, SubsystemError, withinBound, type Subsystem } from './lifecycle/lifecycle';
export { resolveDrainDelaySec, runGracefully, type RunGracefullyOptions } from './lifecycle/run-gracefully';
export { MetricsRegistry, READYZ_BUCKETS_MS } from './metrics/metrics-registry';

// Logging
export { loggerModuleOptions, type LoggerOptions } from './logging/logger-options';
export { REDACTED, redactObject, redactSecrets, redactUrls } from './logging/redact';
export { REQUEST_ID_HEADER, requestIdFrom } from './logging/request-id';

// Telemetry
export {
  extractTraceContext, injectTraceHeaders, observabilityFromTracer, SpanKind, startTelemetry, withSpan,
  type ObservabilityPort, type Telemetry, type TelemetryOptions,
} from './telemetry/telemetry';
export { bootTelemetry, TELEMETRY, TelemetryShutdown, traced, type SpanOptions, type TelemetrySettings } from './telemetry/telemetry-host';

// Embedded stores (the standalone service's backends, and the specs' fakes of the same adapters)
export { decodeRecord, encodeRecord } from './embedded/json-codec';
export { RecordDirectory, type RecordSink, volatileRecords } from './embedded/record-directory';

// Multi-tenancy: the tenant-manager client
export {
  type ConnectionSettings, type DatabaseConfig, type MongoDBConfig, type PostgreSQLConfig, type RabbitMQConfig, type TenantConfig,
  type TenantSummary,
} from './tenancy/tenant-config';
export { type GetTenantConfigOptions, TenantManagerClient } from './tenancy/tenant-manager-client';
export {
  TenantManagerError, type TenantManagerErrorCategory, type TenantManagerErrorDetails, type TenantManagerErrorReason,
} from './tenancy/tenant-manager-error';
export { TENANT_MANAGER_DEFAULTS, type TenantManagerClientOptions } from './tenancy/tenant-manager-options';

// Multi-tenancy: tenant lifecycle events over Redis Pub/Sub
export {
  parseTenantEvent, TENANT_EVENT_ENVIRONMENTS, tenantEventsChannel, type ParsedTenantEvent, type TenantLifecycleEvent,
} from './tenancy/tenant-event';
export {
  TenantEventDispatcher, type TenantEventDispatcherOptions, type TenantEventHandler, type TenantEventOutcome,
} from './tenancy/tenant-event-dispatcher';
export { TenantEventListener, type TenantEventListenerOptions, type TenantEventsRedis } from './tenancy/tenant-event-listener';

// Multi-tenancy: per-tenant resources (a database and a vhost per tenant, pooled)
export {
  TenantPool, type TenantLease, type TenantPoolDisposeReason, type TenantPoolOptions, type TenantPoolStats,
} from './tenancy/tenant-pool';
export { TenantResourceError, type TenantResourceErrorReason } from './tenancy/tenant-resource-error';
export {
  createTenantMongoPool, openTenantMongo, tenantMongoTarget, type OpenTenantMongoOptions, type TenantMongo, type TenantMongoPoolOptions,
  type TenantMongoTarget,
} from './tenancy/tenant-mongo';
export {
  createTenantAmqpPool, openTenantAmqp, tenantAmqpTarget, type OpenTenantAmqpOptions, type TenantAmqp, type TenantAmqpPoolOptions,
  type TenantAmqpTarget, type TenantAmqpTargetOptions,
} from './tenancy/tenant-amqp';
