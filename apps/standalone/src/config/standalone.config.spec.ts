import { ConfigError } from '@fetcher/platform';
import { appEnvironments } from './app-env';
import { loadStandaloneConfig } from './standalone.config';

describe(loadStandaloneConfig.name, () => {
  it('defaults to ./.fetcher-data, loopback :4006 and the demo database', () => {
    expect(loadStandaloneConfig({}, '/home/me/fetcher')).toMatchObject({ dataDir: '/home/me/fetcher/.fetcher-data', http: { host: '127.0.0.1', port: 4006 }, demo: true });
  });

  it('names every bad variable, never its value', () => {
    const error = (() => {
      try {
        loadStandaloneConfig({ SERVER_ADDRESS: 'nowhere', FETCHER_DEMO: 'maybe' }, '/');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(['SERVER_ADDRESS: must be [host]:port or a bare port, from 1 to 65535', 'FETCHER_DEMO: must be true, false, 1, 0, t or f']);
  });

  it.each(['true', 'T', '1', 'maybe'])('refuses MULTI_TENANT_ENABLED=%s: standalone is single-tenant', (value) => {
    expect(() => loadStandaloneConfig({ MULTI_TENANT_ENABLED: value }, '/')).toThrow(
      'MULTI_TENANT_ENABLED: standalone mode is single-tenant; unset it or set it to false (multi-tenant mode needs the Manager and Worker services)',
    );
    expect(loadStandaloneConfig({ MULTI_TENANT_ENABLED: 'false' }, '/').demo).toBe(true);
  });

  it('derives app environments that keep user settings and allow loopback datasources', () => {
    const config = loadStandaloneConfig({ HOST_SAFETY_ALLOWLIST: 'db.internal', REDIS_HOST: 'redis', MAX_PAGINATION_LIMIT: '50' }, '/');
    const { manager, worker } = appEnvironments(config, 'a2V5');
    expect(manager).toMatchObject({ APP_ENC_KEY: 'a2V5', MAX_PAGINATION_LIMIT: '50', HOST_SAFETY_ALLOWLIST: 'db.internal,127.0.0.1/32,::1/128,localhost', LOG_LEVEL: 'warn' });
    expect(manager.REDIS_HOST).toBeUndefined();
    expect(worker).toMatchObject({ STREAMING_ENABLED: 'true', RABBITMQ_FETCHER_WORK_QUEUE: manager.RABBITMQ_FETCHER_WORK_QUEUE });
  });

  it('feeds the apps no stand-in MongoDB or S3 settings: their loaders are told the store and storage are embedded', () => {
    const { manager, worker } = appEnvironments(loadStandaloneConfig({}, '/'), 'a2V5');
    for (const env of [manager, worker]) {
      expect(Object.keys(env).filter((name) => name.startsWith('MONGO_') || (name.startsWith('OBJECT_STORAGE_') && name !== 'OBJECT_STORAGE_KEY_PREFIX'))).toEqual([]);
    }
  });
});
