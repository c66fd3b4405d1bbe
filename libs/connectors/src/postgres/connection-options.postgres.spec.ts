import type { ConnectionDescriptor } from '@fetcher/engine';
import type { ConnectionOptions } from 'node:tls';
import { resolveDialTarget, type DialTarget } from '../common/host-safety';
import { DEFAULT_CONNECTOR_TIMEOUTS } from '../common/timeouts';
import {
  POOL_MAX,
  POSTGRES_SESSION_SQL,
  POSTGRES_SSL_MODES,
  postgresPoolConfig,
  postgresTlsAttempts,
  type PostgresTls,
} from './connection-options.postgres';

const PEM = { ca: '-----BEGIN CERTIFICATE-----\nCA\n', cert: '-----BEGIN CERTIFICATE-----\nCLIENT\n', key: '-----BEGIN PRIVATE KEY-----\nKEY\n' };
const descriptor: ConnectionDescriptor = {
  configName: 'crm',
  type: 'POSTGRESQL',
  host: 'db.example.com',
  port: 6543,
  databaseName: 'sales',
  userName: 'reader',
};

const tls = (attempt: PostgresTls): ConnectionOptions => {
  if (attempt === false) throw new Error('expected a TLS attempt');
  return attempt;
};

describe('PostgreSQL connection options', () => {
  it('allows exactly the libpq modes', () => {
    expect(POSTGRES_SSL_MODES).toEqual(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']);
  });

  it.each([
    ['', [false]],
    ['disable', [false]],
    ['allow', [false, 'unverified']],
    ['prefer', ['unverified', false]],
    ['require', ['unverified']],
    ['verify-ca', ['chain']],
    ['verify-full', ['full']],
  ])('mode %j tries %j', (mode, expected) => {
    const attempts = postgresTlsAttempts(mode, undefined, 'db.example.com');
    expect(
      attempts.map((a) => {
        if (a === false) return false;
        if (a.rejectUnauthorized === false) return 'unverified';
        return a.checkServerIdentity ? 'chain' : 'full';
      }),
    ).toEqual(expected);
  });

  it('passes the CA, client certificate and key to every TLS attempt', () => {
    for (const mode of ['allow', 'prefer', 'require', 'verify-ca', 'verify-full']) {
      for (const attempt of postgresTlsAttempts(mode, PEM, 'db.example.com').filter((a) => a !== false)) {
        expect(tls(attempt)).toMatchObject({ cert: PEM.cert, key: PEM.key, servername: 'db.example.com' });
      }
    }
    expect(tls(postgresTlsAttempts('verify-ca', PEM, 'h')[0])).toMatchObject({ ca: PEM.ca, rejectUnauthorized: true });
    expect(tls(postgresTlsAttempts('verify-full', PEM, 'h')[0])).toMatchObject({ ca: PEM.ca, rejectUnauthorized: true });
  });

  it('verifies the chain but not the name for require with a CA and for verify-ca', () => {
    for (const mode of ['require', 'verify-ca']) {
      const attempt = tls(postgresTlsAttempts(mode, PEM, 'db.example.com')[0]);
      expect(attempt).toMatchObject({ ca: PEM.ca, rejectUnauthorized: true });
      expect(attempt.checkServerIdentity?.('other.example.com', {} as never)).toBeUndefined();
    }
  });

  it('verifies the name with the default check for verify-full', () => {
    expect(tls(postgresTlsAttempts('verify-full', undefined, 'db.example.com')[0]).checkServerIdentity).toBeUndefined();
  });

  it('sends no SNI for an IP literal host', () => {
    expect(tls(postgresTlsAttempts('verify-full', undefined, '')[0])).not.toHaveProperty('servername');
  });

  it('dials the checked address while TLS keeps the configured hostname (pinning)', async () => {
    const target = await resolveDialTarget('DB.Example.com', { allowPrivate: false, allowlist: [] }, {
      lookup: () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]),
    });
    const [attempt] = postgresTlsAttempts('verify-full', PEM, target.servername);
    const config = postgresPoolConfig({ descriptor, secrets: { password: 'pw' }, target, tls: attempt, timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect(config.host).toBe('93.184.216.34');
    expect(config.ssl).toMatchObject({ servername: 'db.example.com', ca: PEM.ca, cert: PEM.cert, key: PEM.key });
  });

  it('maps the descriptor and budgets onto the pool config', async () => {
    const target: DialTarget = { address: '10.0.0.5', family: 4, servername: '' };
    const config = postgresPoolConfig({ descriptor, secrets: { password: 's3cret' }, target, tls: false, timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect(config).toMatchObject({
      host: '10.0.0.5',
      port: 6543,
      user: 'reader',
      database: 'sales',
      ssl: false,
      connectionTimeoutMillis: 10_000,
      max: POOL_MAX,
      idleTimeoutMillis: 0,
      application_name: 'fetcher',
    });
    expect(POOL_MAX).toBe(2);
    // A function, so pg never falls back to PGPASSWORD/.pgpass and the config holds no plain copy.
    expect(typeof config.password).toBe('function');
    expect(await (config.password as () => Promise<string> | string)()).toBe('s3cret');
    expect(JSON.stringify(config)).not.toContain('s3cret');
    const parse = config.types!.getTypeParser(20, 'text') as (value: string) => unknown;
    expect(parse('9223372036854775807')).toBe('9223372036854775807');
  });

  it('uses an empty password when none is given', () => {
    const target: DialTarget = { address: '10.0.0.5', family: 4, servername: '' };
    const config = postgresPoolConfig({ descriptor, secrets: {}, target, tls: false, timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect((config.password as () => string)()).toBe('');
  });

  it('sets the session to UTC, ISO dates, exact floats and hex bytea', () => {
    expect(POSTGRES_SESSION_SQL).toContain("SET TIME ZONE 'UTC'");
    expect(POSTGRES_SESSION_SQL).toContain("SET DateStyle = 'ISO, MDY'");
    expect(POSTGRES_SESSION_SQL).toContain('SET extra_float_digits = 3');
    expect(POSTGRES_SESSION_SQL).toContain("SET bytea_output = 'hex'");
  });
});
