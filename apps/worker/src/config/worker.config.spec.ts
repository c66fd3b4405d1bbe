import { ConfigError } from '@fetcher/platform';
import { loadWorkerConfig, storageBucket, WORKER_ENV_SCHEMA, workerMongoSettings } from './worker.config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const BASE: Record<string, string> = {
  APP_ENC_KEY: KEY,
  RABBITMQ_FETCHER_WORK_QUEUE: 'fetcher.extract-external-data.queue',
  RABBITMQ_JOB_EVENTS_EXCHANGE: 'fetcher.job.events',
  STREAMING_ENABLED: 'true',
  OBJECT_STORAGE_BUCKET: 'results',
  MONGO_NAME: 'Fetcher',
};

function problems(env: Record<string, string | undefined>): string[] {
  try {
    loadWorkerConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
}

describe(loadWorkerConfig.name, () => {
  it('applies the documented defaults', () => {
    const config = loadWorkerConfig(BASE);
    expect(config.health).toEqual({ port: 4007, drainDelaySec: 12 });
    expect(config.amqp).toMatchObject({ concurrency: 5, declareTopology: true, url: 'amqp://localhost:5672', allowLegacyBodySignature: false });
    expect(config.jobs).toMatchObject({ leaseTtlMs: 60_000, reaperIntervalMs: 60_000, maxResultBytes: 268_435_456, retryMax: 5, retryBaseDelayMs: 2_000 });
    expect(config.mongo).toMatchObject({ uri: 'mongodb://localhost/', dbName: 'fetcher', maxPoolSize: 100 });
    expect(config.storage).toMatchObject({ region: 'us-east-1', bucket: 'results', keyPrefix: '', forcePathStyle: false, multipartThresholdBytes: 8 * 1024 * 1024, inMemoryResultBytes: 1024 * 1024 });
    expect(config.events.source).toBe('//lerian.fetcher/worker');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([[undefined, 4007], ['0', 4007], ['-5', 4007], ['70000', 4007], ['x', 4007], ['4100', 4100]])('HEALTH_PORT=%s listens on %d', (raw, port) =>
    expect(loadWorkerConfig({ ...BASE, HEALTH_PORT: raw }).health.port).toBe(port),
  );

  it('reads the delivery retry settings, and refuses bad ones by name', () => {
    expect(loadWorkerConfig({ ...BASE, JOB_RETRY_MAX: '0', JOB_RETRY_BASE_DELAY_MS: '500' }).jobs).toMatchObject({ retryMax: 0, retryBaseDelayMs: 500 });
    expect(problems({ ...BASE, JOB_RETRY_MAX: '21' }).join('\n')).toContain('JOB_RETRY_MAX');
    expect(problems({ ...BASE, JOB_RETRY_BASE_DELAY_MS: 'soon' }).join('\n')).toContain('JOB_RETRY_BASE_DELAY_MS');
  });

  it('keeps datasource connections 30 s by default, 32 at most; 0 turns reuse off; refuses bad values by name', () => {
    expect(loadWorkerConfig(BASE).connectionReuse).toEqual({ idleMs: 30_000, maxIdle: 32 });
    expect(loadWorkerConfig({ ...BASE, CONNECTION_REUSE_IDLE_MS: '0', CONNECTION_REUSE_MAX_IDLE: '4' }).connectionReuse).toEqual({ idleMs: 0, maxIdle: 4 });
    expect(problems({ ...BASE, CONNECTION_REUSE_IDLE_MS: '-1' }).join('\n')).toContain('CONNECTION_REUSE_IDLE_MS');
    expect(problems({ ...BASE, CONNECTION_REUSE_MAX_IDLE: 'many' }).join('\n')).toContain('CONNECTION_REUSE_MAX_IDLE');
  });

  it('reads the multipart threshold in MiB, and refuses one outside 8 to 4096 by name', () => {
    expect(loadWorkerConfig({ ...BASE, OBJECT_STORAGE_MULTIPART_THRESHOLD_MB: '512' }).storage.multipartThresholdBytes).toBe(512 * 1024 * 1024);
    for (const bad of ['4', '5000', 'lots']) {
      expect(problems({ ...BASE, OBJECT_STORAGE_MULTIPART_THRESHOLD_MB: bad }).join('\n')).toContain('OBJECT_STORAGE_MULTIPART_THRESHOLD_MB');
    }
  });

  it('reads the in-memory result limit in KiB (0 turns it off), and refuses one outside 0 to 8192 by name', () => {
    expect(loadWorkerConfig({ ...BASE, RESULT_IN_MEMORY_MAX_KB: '0' }).storage.inMemoryResultBytes).toBe(0);
    expect(loadWorkerConfig({ ...BASE, RESULT_IN_MEMORY_MAX_KB: '8192' }).storage.inMemoryResultBytes).toBe(8 * 1024 * 1024);
    for (const bad of ['-1', '8193', 'lots']) {
      expect(problems({ ...BASE, RESULT_IN_MEMORY_MAX_KB: bad }).join('\n')).toContain('RESULT_IN_MEMORY_MAX_KB');
    }
  });

  it.each([[undefined, 5], ['0', 5], ['-1', 5], ['3', 3]])('RABBITMQ_NUMBERS_OF_WORKERS=%s runs %d at once', (raw, n) =>
    expect(loadWorkerConfig({ ...BASE, RABBITMQ_NUMBERS_OF_WORKERS: raw }).amqp.concurrency).toBe(n),
  );

  it.each([[undefined, 12], ['0', 12], ['-3', 1], ['5', 5]])('READYZ_DRAIN_DELAY_SEC=%s waits %d s', (raw, s) =>
    expect(loadWorkerConfig({ ...BASE, READYZ_DRAIN_DELAY_SEC: raw }).health.drainDelaySec).toBe(s),
  );

  it('leaves telemetry off by default and reports an unknown readiness version', () => {
    const config = loadWorkerConfig(BASE);
    expect(config.telemetry).toEqual({ enabled: false, serviceName: 'fetcher-worker' });
    expect(config.serviceVersion).toBe('unknown');
  });

  it('reads the telemetry switch and the OTEL_* resource and exporter settings', () => {
    const config = loadWorkerConfig({
      ...BASE,
      ENV_NAME: 'staging',
      ENABLE_TELEMETRY: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_RESOURCE_SERVICE_NAME: 'worker-eu',
      OTEL_RESOURCE_SERVICE_VERSION: '2.1.0',
    });
    expect(config.telemetry).toEqual({ enabled: true, serviceName: 'worker-eu', serviceVersion: '2.1.0', environment: 'staging', endpoint: 'http://collector:4318' });
    expect(config.serviceVersion).toBe('2.1.0');
    expect(loadWorkerConfig({ ...BASE, ENV_NAME: 'staging', OTEL_RESOURCE_DEPLOYMENT_ENVIRONMENT: 'eu-1' }).telemetry.environment).toBe('eu-1');
  });

  it('refuses a telemetry endpoint with credentials in it, without printing them', () => {
    const found = problems({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:s3cret@collector:4318' });
    expect(found.some((p) => p.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT'))).toBe(true);
    expect(found.join('\n')).not.toContain('s3cret');
  });

  it('names every missing required variable at once', () => {
    expect(problems({ STREAMING_ENABLED: 'true' })).toEqual(
      expect.arrayContaining([
        'APP_ENC_KEY: is required',
        'RABBITMQ_FETCHER_WORK_QUEUE: is required',
        'RABBITMQ_JOB_EVENTS_EXCHANGE: is required',
        'OBJECT_STORAGE_BUCKET: is required',
        'MONGO_NAME: is required',
      ]),
    );
  });

  it.each([undefined, 'false', 'yes'])('refuses STREAMING_ENABLED=%s', (value) => {
    expect(problems({ ...BASE, STREAMING_ENABLED: value })).toContain(
      'STREAMING_ENABLED: STREAMING_ENABLED=true is required for mandatory job event notifications',
    );
  });

  it('is single-tenant by default', () => {
    expect(loadWorkerConfig(BASE).tenancy).toEqual({ multiTenant: false, tenantId: 'default' });
  });

  it('reads multi-tenant mode with the reconciler interval, and needs no token key source', () => {
    const MT = { ...BASE, ENV_NAME: 'staging', MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_URL: 'https://tm', MULTI_TENANT_SERVICE_API_KEY: 'k', MULTI_TENANT_REDIS_HOST: 'events' };
    expect(loadWorkerConfig(MT).tenancy).toMatchObject({ multiTenant: true, reconcileIntervalSec: 60, pools: { maxTenants: 100, idleTimeoutSec: 300 }, events: { channel: 'tenant-events:staging:' } });
    expect(loadWorkerConfig({ ...MT, MULTI_TENANT_RECONCILE_INTERVAL_SEC: '15' }).tenancy).toMatchObject({ reconcileIntervalSec: 15 });
  });

  it('names each missing multi-tenant prerequisite and a CA certificate', () => {
    const found = problems({ ...BASE, MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_REDIS_CA_CERT: 'x' }).join('\n');
    for (const variable of ['MULTI_TENANT_URL', 'MULTI_TENANT_SERVICE_API_KEY', 'MULTI_TENANT_REDIS_HOST', 'MULTI_TENANT_REDIS_CA_CERT', 'ENV_NAME']) expect(found).toContain(`${variable}: `);
    expect(found).not.toContain('MULTI_TENANT_JWKS_URL');
  });

  it('refuses a short key without printing it', () => {
    const short = Buffer.alloc(16, 1).toString('base64');
    const found = problems({ ...BASE, APP_ENC_KEY: short });
    expect(found.some((p) => p.startsWith('APP_ENC_KEY'))).toBe(true);
    expect(found.join('\n')).not.toContain(short);
  });

  it.each([
    ['OBJECT_STORAGE_ACCESS_KEY_ID', 'OBJECT_STORAGE_SECRET_KEY'],
    ['MONGO_USER', 'MONGO_PASSWORD'],
    ['RABBITMQ_DEFAULT_USER', 'RABBITMQ_DEFAULT_PASS'],
  ])('refuses %s without %s', (a, b) => {
    expect(problems({ ...BASE, [a]: 'secret-value' })).toEqual([`${b}: is required when ${a} is set`]);
  });

  it('refuses plaintext dependencies in SaaS mode', () => {
    expect(problems({ ...BASE, DEPLOYMENT_MODE: 'saas', OBJECT_STORAGE_ENDPOINT: 'https://s3.example.com' })).toEqual([
      'MONGO_PARAMETERS: must use TLS when DEPLOYMENT_MODE=saas',
      'RABBITMQ_URI: must use TLS when DEPLOYMENT_MODE=saas',
    ]);
    expect(problems({ ...BASE, DEPLOYMENT_MODE: 'saas', RABBITMQ_URI: 'amqps', MONGO_PARAMETERS: 'tls=true' })).toEqual([]);
  });

  it('does not ask TLS of the shared MongoDB and RabbitMQ settings in multi-tenant SaaS mode, where they are unused', () => {
    const MT = {
      ...BASE, DEPLOYMENT_MODE: 'saas', OBJECT_STORAGE_ENDPOINT: 'https://s3.example.com', ENV_NAME: 'production', MULTI_TENANT_ENABLED: 'true',
      MULTI_TENANT_URL: 'https://tm', MULTI_TENANT_SERVICE_API_KEY: 'k', MULTI_TENANT_REDIS_HOST: 'events', MULTI_TENANT_REDIS_TLS: 'true',
    };
    expect(problems(MT)).toEqual([]);
  });

  it('refuses storage URLs without a host or with credentials, naming the variable only', () => {
    expect(problems({ ...BASE, OBJECT_STORAGE_ENDPOINT: 'https://:27401' })).toEqual(['OBJECT_STORAGE_ENDPOINT: must name a host']);
    const found = problems({ ...BASE, OBJECT_STORAGE_ENDPOINT: 'https://user:hunter2@s3.example.com' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^OBJECT_STORAGE_ENDPOINT: /);
    expect(found[0]).not.toContain('hunter2');
  });

  it('refuses plain-HTTP storage on a remote host in production, unless allowed', () => {
    const env = { ...BASE, OBJECT_STORAGE_ENDPOINT: 'http://s3.example.com' };
    expect(problems(env)).toEqual(['OBJECT_STORAGE_ENDPOINT: must use https outside development (or set ALLOW_INSECURE_TLS=true)']);
    expect(problems({ ...env, ALLOW_INSECURE_TLS: 'true' })).toEqual([]);
    expect(problems({ ...env, ENV_NAME: 'dev' })).toEqual([]);
    expect(problems({ ...BASE, OBJECT_STORAGE_ENDPOINT: 'http://127.0.0.1:9000' })).toEqual([]);
  });

  it('reads internal datasources and skips incomplete groups by name', () => {
    const config = loadWorkerConfig({
      ...BASE,
      DATASOURCE_LEDGER_CONFIG_NAME: 'ledger',
      DATASOURCE_LEDGER_TYPE: 'postgresql',
      DATASOURCE_LEDGER_HOST: 'db',
      DATASOURCE_LEDGER_DATABASE: 'ledger',
      DATASOURCE_LEDGER_PASSWORD: 'pw',
      DATASOURCE_LEDGER_OPTIONS: 'a=1&b=2',
      DATASOURCE_BAD_CONFIG_NAME: 'bad',
      DATASOURCE_BAD_TYPE: 'nosql',
    });
    expect(config.internalDatasources).toEqual([
      { configName: 'ledger', type: 'POSTGRESQL', host: 'db', port: 0, databaseName: 'ledger', userName: '', password: 'pw', metadata: { a: '1', b: '2' } },
    ]);
    expect(config.skippedDatasources).toEqual(['DATASOURCE_BAD']);
  });

  it('exports the schema for documentation and tooling', () => {
    expect(Object.keys(WORKER_ENV_SCHEMA.shape)).toEqual(expect.arrayContaining(['JOB_LEASE_TTL_SEC', 'RESULT_SPOOL_DIR', 'HEALTH_PORT']));
  });

  describe('with an embedded store and object storage', () => {
    const { MONGO_NAME: _mongo, OBJECT_STORAGE_BUCKET: _bucket, ...embeddedBase } = BASE;

    it('asks for no MongoDB or S3 setting and has none', () => {
      const config = loadWorkerConfig(
        { ...embeddedBase, OBJECT_STORAGE_ENDPOINT: 'http://s3.example.com', ENV_NAME: 'production' },
        { embedded: { store: true, objectStorage: true } },
      );
      expect(config.mongo).toBeUndefined();
      expect(config.storage.bucket).toBeUndefined();
      expect(config.storage.endpoint).toBeUndefined();
      expect(config.storage.keyPrefix).toBe('');
      expect(() => workerMongoSettings(config)).toThrow(ConfigError);
      expect(() => storageBucket(config)).toThrow(ConfigError);
    });

    it('still requires MONGO_NAME and OBJECT_STORAGE_BUCKET for MongoDB and S3', () => {
      expect(problems(embeddedBase)).toEqual(expect.arrayContaining(['OBJECT_STORAGE_BUCKET: is required', 'MONGO_NAME: is required']));
      expect(problems({ ...embeddedBase, OBJECT_STORAGE_BUCKET: 'b' })).toEqual(['MONGO_NAME: is required']);
      const config = loadWorkerConfig(BASE);
      expect([workerMongoSettings(config).dbName, storageBucket(config)]).toEqual(['fetcher', 'results']);
    });
  });
});
