import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDotEnvIfLocal } from './dot-env';
import { isLoopbackHost, isNonProductionEnv, mongoUriFromEnv, mongoUsesTls, saasTlsProblems, urlUsesTls } from './env-rules';

describe(isNonProductionEnv.name, () => {
  it.each(['local', 'dev', 'Development', 'TEST', 'testing', ' local '])('treats %s as non-production', (name) => expect(isNonProductionEnv(name)).toBe(true));
  it.each([undefined, '', 'prod', 'production', 'staging', 'localhost'])('treats %s as production', (name) => expect(isNonProductionEnv(name)).toBe(false));
});

describe(mongoUriFromEnv.name, () => {
  it.each([
    [{}, 'mongodb://localhost/'],
    [{ MONGO_HOST: 'mongo', MONGO_PORT: '27017' }, 'mongodb://mongo:27017/'],
    [{ MONGO_HOST: 'mongo', MONGO_PORT: ' ', MONGO_USER: 'app', MONGO_PASSWORD: 'p@ss:/word' }, 'mongodb://app:p%40ss%3A%2Fword@mongo/'],
    [{ MONGO_URI: 'mongodb+srv', MONGO_HOST: 'cluster.example.com', MONGO_PORT: '27017', MONGO_PARAMETERS: 'tls=true&w=majority' }, 'mongodb+srv://cluster.example.com/?tls=true&w=majority'],
    [{ MONGO_HOST: 'mongo', MONGO_PARAMETERS: '?authSource=admin' }, 'mongodb://mongo/?authSource=admin'],
  ])('builds %j', (env, expected) => expect(mongoUriFromEnv(env)).toBe(expected));
});

describe(saasTlsProblems.name, () => {
  const deps = [
    { variable: 'MONGO_PARAMETERS', configured: true, tls: mongoUsesTls('mongodb', 'w=1') },
    { variable: 'RABBITMQ_URI', configured: true, tls: urlUsesTls('amqps://rabbit') },
    { variable: 'REDIS_TLS', configured: false, tls: false },
    { variable: 'MULTI_TENANT_URL', configured: true, tls: urlUsesTls('http://tm') },
  ];

  it('names every configured dependency without TLS in saas mode only', () => {
    expect(saasTlsProblems('saas', deps)).toEqual([
      { variable: 'MONGO_PARAMETERS', message: 'must use TLS when DEPLOYMENT_MODE=saas' },
      { variable: 'MULTI_TENANT_URL', message: 'must use TLS when DEPLOYMENT_MODE=saas' },
    ]);
    expect(saasTlsProblems('byoc', deps)).toEqual([]);
    expect(saasTlsProblems(undefined, deps)).toEqual([]);
  });

  it.each([
    ['mongodb+srv', undefined, true], ['mongodb', 'tls=true', true], ['mongodb', 'ssl=1', true],
    ['mongodb', 'tls=false', false], ['mongodb', undefined, false],
  ])('reads MongoDB TLS from scheme %s and parameters %s', (scheme, params, expected) => expect(mongoUsesTls(scheme, params)).toBe(expected));

  it.each([['https://x', true], ['rediss://x', true], ['http://x', false], ['not a url', false], [undefined, false]])(
    'reads URL TLS from %s', (url, expected) => expect(urlUsesTls(url)).toBe(expected));
});

describe(isLoopbackHost.name, () => {
  it.each(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'a.localhost'])('%s is loopback', (h) => expect(isLoopbackHost(h)).toBe(true));
  it.each(['10.0.0.1', 's3.amazonaws.com', '::2', 'localhost.example.com'])('%s is not', (h) => expect(isLoopbackHost(h)).toBe(false));
});

describe(loadDotEnvIfLocal.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-dotenv-'));
  const path = join(dir, '.env');
  writeFileSync(path, 'FROM_FILE=1\nALREADY=file\n# comment\nQUOTED="a b"\n');

  it('loads the file only with ENV_NAME=local, keeping variables already set', () => {
    const env: Record<string, string | undefined> = { ENV_NAME: 'local', ALREADY: 'process' };
    expect(loadDotEnvIfLocal(env, { path })).toEqual(['FROM_FILE', 'QUOTED']);
    expect(env).toEqual({ ENV_NAME: 'local', ALREADY: 'process', FROM_FILE: '1', QUOTED: 'a b' });
  });

  it.each([[{ ENV_NAME: 'production' }, undefined], [{ ENV_NAME: 'dev' }, undefined], [{}, undefined], [{ ENV_NAME: '' }, 'prod']])(
    'ignores the file for %j (default %s)', (env, defaultEnvName) => {
      expect(loadDotEnvIfLocal({ ...env }, { path, defaultEnvName })).toEqual([]);
    });

  it('honours a default of local and tolerates a missing file', () => {
    expect(loadDotEnvIfLocal({}, { path, defaultEnvName: 'local' })).toHaveLength(3);
    expect(loadDotEnvIfLocal({ ENV_NAME: 'local' }, { path: join(dir, 'missing.env') })).toEqual([]);
  });
});
