import { ConfigError, pairCheck, parseEnv, saasTlsProblems } from '@fetcher/platform';
import { z } from 'zod';
import { MONGO_CREDENTIALS, MONGO_ENV, mongoSettingsFrom, mongoTlsRequirement } from './mongo-env';
import { RABBITMQ_CREDENTIALS, RABBITMQ_ENV, rabbitmqSettingsFrom, rabbitmqTlsRequirement } from './rabbitmq-env';
import { telemetryEnv, telemetrySettingsFrom } from './telemetry-env';

// The fragments as a service spreads them into its schema, with the shared cross-variable rules.
const SCHEMA = z.object({ ...MONGO_ENV, ...RABBITMQ_ENV, ...telemetryEnv('fetcher-test') });
const load = (env: Record<string, string>) =>
  parseEnv(SCHEMA, env, [pairCheck(MONGO_CREDENTIALS, RABBITMQ_CREDENTIALS), (e) => saasTlsProblems(e.DEPLOYMENT_MODE, [mongoTlsRequirement(e, true), rabbitmqTlsRequirement(e)])]);
const problems = (env: Record<string, string>): string[] => {
  try {
    load(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
};
const REQUIRED = { MONGO_NAME: 'Fetcher', RABBITMQ_FETCHER_WORK_QUEUE: 'q' };

describe('the shared configuration fragments', () => {
  it('build the MongoDB, RabbitMQ and tracing settings with the documented defaults', () => {
    const e = load(REQUIRED);
    expect(mongoSettingsFrom(e)).toEqual({ uri: 'mongodb://localhost/', dbName: 'fetcher' });
    expect(rabbitmqSettingsFrom(e)).toEqual({ url: 'amqp://localhost:5672', workQueue: 'q', tls: false });
    expect(telemetrySettingsFrom(e, undefined)).toEqual({ enabled: false, serviceName: 'fetcher-test' });
    expect(telemetrySettingsFrom(e, 'local').environment).toBe('local');
  });

  it('encode credentials, decode the CA and lower-case the database name', () => {
    const e = load({ ...REQUIRED, MONGO_USER: 'u@x', MONGO_PASSWORD: 'p/w', MONGO_PORT: '27017', MONGO_PARAMETERS: 'authSource=admin', MONGO_TLS_CA_CERT: Buffer.from('PEM').toString('base64') });
    expect(mongoSettingsFrom(e)).toEqual({ uri: 'mongodb://u%40x:p%2Fw@localhost:27017/?authSource=admin', dbName: 'fetcher', tlsCaPem: 'PEM' });
    expect(mongoSettingsFrom({ ...e, MONGO_NAME: undefined })).toBeUndefined();
  });

  it('name the variable and the rule of every problem, never the value', () => {
    expect(problems({ MONGO_PORT: '0', RABBITMQ_PORT_HOST: 'x', MONGO_URI: 'postgres', MONGO_USER: 'secret-user' }).sort()).toEqual(
      [
        'MONGO_NAME: is required',
        'MONGO_PASSWORD: is required when MONGO_USER is set',
        'MONGO_PORT: must be at least 1',
        'MONGO_URI: must be one of mongodb, mongodb+srv',
        'RABBITMQ_FETCHER_WORK_QUEUE: is required',
        'RABBITMQ_PORT_HOST: must be a whole number',
      ].sort(),
    );
  });

  it('ask for TLS on MongoDB (through MONGO_PARAMETERS or mongodb+srv) and RabbitMQ in SaaS mode', () => {
    expect(problems({ ...REQUIRED, DEPLOYMENT_MODE: 'saas' })).toEqual(['MONGO_PARAMETERS: must use TLS when DEPLOYMENT_MODE=saas', 'RABBITMQ_URI: must use TLS when DEPLOYMENT_MODE=saas']);
    expect(problems({ ...REQUIRED, DEPLOYMENT_MODE: 'saas', MONGO_URI: 'mongodb+srv', RABBITMQ_URI: 'amqps' })).toEqual([]);
  });
});
