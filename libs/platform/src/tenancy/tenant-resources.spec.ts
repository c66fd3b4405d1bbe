import { tenantAmqpTarget } from './tenant-amqp';
import { type TenantConfig, TenantConfigSchema } from './tenant-config';
import { tenantMongoTarget } from './tenant-mongo';
import { TenantResourceError } from './tenant-resource-error';

/** The decoded form, as the client returns it. */
const cfg = (raw: unknown): TenantConfig => TenantConfigSchema.parse(raw);

const rabbit = { host: 'mq.example', port: 5671, vhost: 'acme', username: 'acme-user', password: 'p@ss/w:rd' };

function failure(fn: () => unknown): TenantResourceError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TenantResourceError) return error;
    throw error;
  }
  throw new Error('expected a TenantResourceError');
}

describe('tenantMongoTarget', () => {
  it('builds an escaped URI from the fields, with authSource=admin for credentials without one', () => {
    const config = cfg({
      databases: { fetcher: { mongodb: { host: 'db.example', port: 27017, database: 'acme_fetcher', username: 'u@x', password: 'p/w:d', tls: true, directConnection: true } } },
    });
    expect(tenantMongoTarget('acme', config)).toEqual({
      uri: 'mongodb://u%40x:p%2Fw%3Ad@db.example:27017/acme_fetcher?authSource=admin&directConnection=true&tls=true',
      database: 'acme_fetcher',
      maxPoolSize: 100,
    });
  });

  it('uses a given uri verbatim but always selects the configured database', () => {
    const config = cfg({ databases: { fetcher: { mongodb: { uri: 'mongodb+srv://c.example/other', database: 'acme_db', maxPoolSize: 5 } } } });
    expect(tenantMongoTarget('acme', config)).toEqual({ uri: 'mongodb+srv://c.example/other', database: 'acme_db', maxPoolSize: 5 });
  });

  it('adds credentials only when both parts are given, and keeps separate certificate files apart', () => {
    const config = cfg({
      databases: { fetcher: { mongodb: { host: 'h', port: 1, database: 'd', username: 'only', tlsCertFile: '/c.pem', tlsKeyFile: '/k.pem', tlsSkipVerify: true } } },
    });
    expect(tenantMongoTarget('acme', config)).toEqual({
      uri: 'mongodb://h:1/d?authSource=admin&tlsInsecure=true', database: 'd', maxPoolSize: 100, certFile: '/c.pem', keyFile: '/k.pem',
    });
  });

  it.each([
    ['no databases', {}, 'databases.fetcher.mongodb'],
    ['another module only', { databases: { crm: { mongodb: { database: 'crm' } } } }, 'databases.fetcher.mongodb'],
    ['no database name', { databases: { fetcher: { mongodb: { uri: 'mongodb://h' } } } }, 'databases.fetcher.mongodb.database'],
    ['no host', { databases: { fetcher: { mongodb: { database: 'd', port: 1 } } } }, 'databases.fetcher.mongodb.host'],
  ] as Array<[string, unknown, string]>)('refuses %s with mongodb_not_configured, never a shared database', (_name, config, field) => {
    const error = failure(() => tenantMongoTarget('acme', cfg(config)));
    expect(error).toMatchObject({ reason: 'mongodb_not_configured', category: 'unavailable', tenantId: 'acme', field });
  });

  it('refuses a uri with another scheme', () => {
    const error = failure(() => tenantMongoTarget('acme', cfg({ databases: { fetcher: { mongodb: { uri: 'http://h', database: 'd' } } } })));
    expect(error.reason).toBe('invalid_config');
    expect(error.message).not.toContain('http://h');
  });
});

describe('tenantAmqpTarget', () => {
  it('dials the tenant vhost with its own credentials, escaped', () => {
    const target = tenantAmqpTarget('acme', cfg({ messaging: { rabbitmq: { ...rabbit, vhost: '/' } } }), { defaultTls: false });
    expect(target).toEqual({ url: 'amqp://acme-user:p%40ss%2Fw%3Ard@mq.example:5671', vhost: '/', tls: false });
    expect(tenantAmqpTarget('acme', cfg({ messaging: { rabbitmq: { ...rabbit, vhost: 'a b/c' } } }), { defaultTls: false }).url).toMatch(/\/a%20b%2Fc$/);
  });

  it.each([
    [undefined, false, 'amqp:'],
    [undefined, true, 'amqps:'],
    [true, false, 'amqps:'],
    [false, true, 'amqp:'],
  ])('tenant tls %s with the service default %s dials %s', (tls, defaultTls, scheme) => {
    const target = tenantAmqpTarget('acme', cfg({ messaging: { rabbitmq: { ...rabbit, ...(tls === undefined ? {} : { tls }) } } }), { defaultTls });
    expect(target.url.startsWith(`${scheme}//`)).toBe(true);
    expect(target.tls).toBe(scheme === 'amqps:');
  });

  it.each(['host', 'port', 'vhost', 'username', 'password'] as const)('refuses a config without %s', (key) => {
    const error = failure(() => tenantAmqpTarget('acme', cfg({ messaging: { rabbitmq: { ...rabbit, [key]: undefined } } }), { defaultTls: false }));
    expect(error).toMatchObject({ reason: 'rabbitmq_not_configured', field: `messaging.rabbitmq.${key}` });
  });

  it('refuses a config without messaging.rabbitmq', () => {
    expect(failure(() => tenantAmqpTarget('acme', cfg({}), { defaultTls: false })).field).toBe('messaging.rabbitmq');
  });
});
