import { ConfigError } from '@fetcher/platform';
import { aMasterKey } from '../testing/manager-test-env';
import { loadManagerConfig, mongoSettings } from './manager.config';

const required = () => ({ APP_ENC_KEY: aMasterKey(), MONGO_NAME: 'Fetcher', RABBITMQ_FETCHER_WORK_QUEUE: 'fetcher.q' });

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadManagerConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe(loadManagerConfig.name, () => {
  it('leaves telemetry off by default and reads the OTEL_* settings when given', () => {
    expect(loadManagerConfig(required()).telemetry).toEqual({ enabled: false, serviceName: 'fetcher-manager', environment: 'local' });
    const sut = loadManagerConfig({
      ...required(),
      ENABLE_TELEMETRY: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318',
      OTEL_RESOURCE_SERVICE_NAME: 'manager-eu',
      OTEL_RESOURCE_SERVICE_VERSION: '3.0.1',
      OTEL_RESOURCE_DEPLOYMENT_ENVIRONMENT: 'eu-1',
    });
    expect(sut.telemetry).toEqual({ enabled: true, serviceName: 'manager-eu', serviceVersion: '3.0.1', environment: 'eu-1', endpoint: 'https://collector:4318' });
    expect(sut.serviceVersion).toBe('3.0.1');
  });

  it('accepts a bare port as SERVER_ADDRESS (":41908")', () => {
    expect(loadManagerConfig({ ...required(), SERVER_ADDRESS: '41908' }).http).toEqual({ port: 41908 });
  });

  it('applies the documented defaults and treats blank values as unset', () => {
    const sut = loadManagerConfig({ ...required(), SERVER_ADDRESS: '  ', REDIS_HOST: '' });
    expect(sut.http).toEqual({ port: 4006 });
    expect(sut.version).toBe('0.0.0');
    expect(sut.mongo).toEqual({ uri: 'mongodb://localhost/', dbName: 'fetcher' });
    expect(sut.redis).toBeUndefined();
    expect(sut.schemaCache.ttlSeconds).toBe(300);
    expect(sut.pagination.maxLimit).toBe(100);
    expect(sut.hostSafety).toEqual({ allowlist: [], allowPrivate: true });
    expect(sut.keyRing.currentVersion).toBe('1');
    expect(sut.tenancy).toEqual({ multiTenant: false, tenantId: 'default' });
    expect(sut.drainDelaySec).toBe(12);
    expect(Object.isFrozen(sut.hostSafety)).toBe(true);
  });

  it('reads the re-dispatch bound, refusing one shorter than a message can live, by name', () => {
    expect(loadManagerConfig(required()).dispatch).toMatchObject({ redispatchAfterSec: 600, maxRedispatches: 2 });
    expect(loadManagerConfig({ ...required(), DISPATCH_REDISPATCH_AFTER_SEC: '330', DISPATCH_MAX_REDISPATCHES: '0' }).dispatch).toMatchObject({ redispatchAfterSec: 330, maxRedispatches: 0 });
    expect(problemsOf({ ...required(), DISPATCH_REDISPATCH_AFTER_SEC: '329' }).join('\n')).toContain('DISPATCH_REDISPATCH_AFTER_SEC');
    expect(problemsOf({ ...required(), DISPATCH_MAX_REDISPATCHES: '-1' }).join('\n')).toContain('DISPATCH_MAX_REDISPATCHES');
  });

  it('lists every missing required variable at once', () => {
    const problems = problemsOf({});
    expect(problems.join('\n')).toMatch(/APP_ENC_KEY/);
    expect(problems.join('\n')).toMatch(/MONGO_NAME/);
    expect(problems.join('\n')).toMatch(/RABBITMQ_FETCHER_WORK_QUEUE/);
  });

  it('reads multi-tenant mode into the typed tenancy section, with token verification', () => {
    const sut = loadManagerConfig({
      ...required(),
      ENV_NAME: 'production',
      MULTI_TENANT_ENABLED: 'true',
      MULTI_TENANT_URL: 'http://tenant-manager:8080',
      MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true',
      MULTI_TENANT_SERVICE_API_KEY: 'k',
      MULTI_TENANT_REDIS_HOST: 'events',
      MULTI_TENANT_JWKS_URL: 'https://auth/jwks',
      MULTI_TENANT_JWT_ISSUER: 'https://auth',
    });
    expect(sut.tenancy).toMatchObject({
      multiTenant: true,
      tenantManager: { url: 'http://tenant-manager:8080', apiKey: 'k', allowInsecureHttp: true },
      events: { channel: 'tenant-events:production:' },
      tokens: { jwksUrl: 'https://auth/jwks', algorithms: ['RS256', 'ES256'], issuer: 'https://auth' },
    });
    expect(Object.isFrozen(sut.tenancy)).toBe(true);
    // Private ranges are denied in multi-tenant mode whatever HOST_SAFETY_ALLOW_PRIVATE says; single-tenant keeps it.
    expect(sut.hostSafety.allowPrivate).toBe(false);
    expect(loadManagerConfig({ ...required(), HOST_SAFETY_ALLOW_PRIVATE: 'true' }).hostSafety.allowPrivate).toBe(true);
  });

  it('names each missing multi-tenant prerequisite, the ENV_NAME rule included', () => {
    const problems = problemsOf({ ...required(), MULTI_TENANT_ENABLED: 'true' }).join('\n');
    for (const variable of ['MULTI_TENANT_URL', 'MULTI_TENANT_SERVICE_API_KEY', 'MULTI_TENANT_REDIS_HOST', 'MULTI_TENANT_JWKS_URL']) expect(problems).toContain(`${variable}: `);
    expect(problems).toContain('ENV_NAME: must be staging or production');
  });

  it('names the variable but never the value', () => {
    const secret = 'secret-host:99999';
    const message = problemsOf({ ...required(), SERVER_ADDRESS: secret, PLUGIN_AUTH_ADDRESS: 'https://u:p@auth' }).join('\n');
    expect(message).toMatch(/SERVER_ADDRESS/);
    expect(message).toMatch(/PLUGIN_AUTH_ADDRESS/);
    expect(message).not.toContain('secret-host');
    expect(message).not.toContain('u:p');
  });

  it('refuses half-set credential pairs, short keys and unknown allowlist entries', () => {
    const problems = problemsOf({ ...required(), MONGO_USER: 'u', RABBITMQ_DEFAULT_PASS: 'p', APP_ENC_KEY: 'c2hvcnQ=', HOST_SAFETY_ALLOWLIST: 'ok.example.com,not a host' }).join('\n');
    expect(problems).toMatch(/MONGO_PASSWORD/);
    expect(problems).toMatch(/RABBITMQ_DEFAULT_USER/);
    expect(problems).toMatch(/APP_ENC_KEY/);
    expect(problems).toMatch(/HOST_SAFETY_ALLOWLIST/);
  });

  it('refuses plaintext dependencies in saas mode', () => {
    const problems = problemsOf({ ...required(), DEPLOYMENT_MODE: 'saas', REDIS_HOST: 'redis' }).join('\n');
    expect(problems).toMatch(/MONGO_PARAMETERS/);
    expect(problems).toMatch(/RABBITMQ_URI/);
    expect(problems).toMatch(/REDIS_TLS/);
  });

  it('does not ask TLS of the shared MongoDB and RabbitMQ settings in multi-tenant saas mode, where they are unused', () => {
    const sut = loadManagerConfig({
      ...required(), DEPLOYMENT_MODE: 'saas', ENV_NAME: 'production', MULTI_TENANT_ENABLED: 'true', MULTI_TENANT_URL: 'https://tm',
      MULTI_TENANT_SERVICE_API_KEY: 'k', MULTI_TENANT_REDIS_HOST: 'events', MULTI_TENANT_REDIS_TLS: 'true', MULTI_TENANT_JWKS_URL: 'https://auth/jwks',
    });
    expect(sut.tenancy.multiTenant).toBe(true);
    // The same shared settings are still refused in single-tenant saas mode.
    expect(problemsOf({ ...required(), DEPLOYMENT_MODE: 'saas' }).join('\n')).toMatch(/RABBITMQ_URI/);
  });

  it('builds percent-encoded Mongo and RabbitMQ URLs and reads Redis', () => {
    const sut = loadManagerConfig({
      ...required(),
      MONGO_HOST: 'm',
      MONGO_PORT: '27017',
      MONGO_USER: 'u@x',
      MONGO_PASSWORD: 'p/w',
      MONGO_PARAMETERS: 'authSource=admin',
      RABBITMQ_HOST: 'r',
      RABBITMQ_DEFAULT_USER: 'g',
      RABBITMQ_DEFAULT_PASS: 'p@ss',
      REDIS_HOST: '127.0.0.1',
      SCHEMA_CACHE_TTL_SECONDS: '-4',
      READYZ_DRAIN_DELAY_SEC: '-1',
    });
    expect(mongoSettings(sut).uri).toBe('mongodb://u%40x:p%2Fw@m:27017/?authSource=admin');
    expect(sut.amqp.url).toBe('amqp://g:p%40ss@r:5672');
    expect(sut.redis).toEqual({ host: '127.0.0.1', port: 6379, db: 0, tls: false });
    expect(sut.schemaCache.ttlSeconds).toBe(300);
    expect(sut.drainDelaySec).toBe(1);
  });

  it('reads internal datasources, skipping bad groups and keeping the first of a name', () => {
    const sut = loadManagerConfig({
      ...required(),
      DATASOURCE_A_CONFIG_NAME: 'ledger',
      DATASOURCE_A_TYPE: 'postgresql',
      DATASOURCE_A_HOST: 'db',
      DATASOURCE_A_DATABASE: 'app',
      DATASOURCE_A_PORT: 'x',
      DATASOURCE_A_OPTIONS: 'serviceName=a&b=c',
      DATASOURCE_B_CONFIG_NAME: 'ledger',
      DATASOURCE_B_TYPE: 'MYSQL',
      DATASOURCE_B_HOST: 'db2',
      DATASOURCE_B_DATABASE: 'x',
      DATASOURCE_C_CONFIG_NAME: 'badssl',
      DATASOURCE_C_TYPE: 'MYSQL',
      DATASOURCE_C_HOST: 'h',
      DATASOURCE_C_DATABASE: 'd',
      DATASOURCE_C_SSLMODE: 'require',
      DATASOURCE_D_CONFIG_NAME: 'nohost',
      DATASOURCE_D_TYPE: 'MYSQL',
      MAX_PAGINATION_MONTH_DATE_RANGE: '3',
    });
    expect(sut.internalDatasources).toEqual([
      expect.objectContaining({ configName: 'ledger', type: 'POSTGRESQL', host: 'db', port: 0, metadata: { serviceName: 'a', b: 'c' } }),
    ]);
    expect(sut.warnings.join('\n')).toMatch(/DATASOURCE_A_PORT/);
    expect(sut.warnings.join('\n')).toMatch(/DATASOURCE_C_SSLMODE/);
    expect(sut.warnings.join('\n')).toMatch(/MAX_PAGINATION_MONTH_DATE_RANGE/);
  });

  describe('the result route (RESULT_DOWNLOAD_ENABLED)', () => {
    it('is off by default, and then reads no OBJECT_STORAGE_* variable', () => {
      expect(loadManagerConfig({ ...required(), OBJECT_STORAGE_ENDPOINT: 'not a url at all' }).resultDownload).toEqual({ enabled: false });
    });

    it('reads the Worker\'s OBJECT_STORAGE_* variables when on', () => {
      const sut = loadManagerConfig({
        ...required(),
        RESULT_DOWNLOAD_ENABLED: 'true',
        OBJECT_STORAGE_BUCKET: 'results',
        OBJECT_STORAGE_ENDPOINT: 'https://s3.example.com',
        OBJECT_STORAGE_KEY_PREFIX: 'fetcher/',
        OBJECT_STORAGE_USE_PATH_STYLE: 'true',
        OBJECT_STORAGE_ACCESS_KEY_ID: 'AKIA',
        OBJECT_STORAGE_SECRET_KEY: 'secret',
      });
      expect(sut.resultDownload).toEqual({
        enabled: true,
        storage: {
          bucket: 'results',
          region: 'us-east-1',
          endpoint: 'https://s3.example.com',
          keyPrefix: 'fetcher/',
          forcePathStyle: true,
          credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret' },
        },
      });
    });

    it('names what is missing or unsafe when on, never the value', () => {
      const problems = problemsOf({ ...required(), ENV_NAME: 'production', RESULT_DOWNLOAD_ENABLED: 'true', OBJECT_STORAGE_ENDPOINT: 'http://minio.internal:9000', OBJECT_STORAGE_SECRET_KEY: 'hunter2' });
      expect(problems).toEqual(expect.arrayContaining([
        'OBJECT_STORAGE_BUCKET: is required when RESULT_DOWNLOAD_ENABLED is true',
        'OBJECT_STORAGE_ACCESS_KEY_ID: must be set together with OBJECT_STORAGE_SECRET_KEY',
        'OBJECT_STORAGE_ENDPOINT: must use https outside development (or set ALLOW_INSECURE_TLS=true)',
      ]));
      expect(problems.join('\n')).not.toContain('hunter2');
    });

    it('asks for no storage setting when the host embeds the object storage', () => {
      const sut = loadManagerConfig({ ...required(), RESULT_DOWNLOAD_ENABLED: 'true' }, { embedded: { store: true, objectStorage: true } });
      expect(sut.resultDownload).toEqual({ enabled: true });
    });
  });

  describe('with an embedded store', () => {
    const { MONGO_NAME: _unused, ...withoutMongo } = required();

    it('asks for no MongoDB setting and has none', () => {
      const sut = loadManagerConfig({ ...withoutMongo, MONGO_HOST: 'ignored' }, { embedded: { store: true } });
      expect(sut.mongo).toBeUndefined();
      expect(() => mongoSettings(sut)).toThrow(ConfigError);
      expect(sut.amqp.workQueue).toBe('fetcher.q');
    });

    it('still requires MONGO_NAME when the store is MongoDB', () => {
      expect(problemsOf(withoutMongo)).toEqual(['MONGO_NAME: is required']);
      expect(mongoSettings(loadManagerConfig(required())).dbName).toBe('fetcher');
    });
  });
});
