import type { LookupFunction } from 'node:net';
import { MongoClient } from 'mongodb';
import type { ConnectionSecrets } from '@fetcher/engine';
import { DEFAULT_CONNECTOR_TIMEOUTS } from '../common/timeouts';
import { MONGO_SSL_MODES, mongoClientOptions, mongoConnectionString } from './client-options.mongodb';
import { mongoDescriptor } from './testing/mongo-descriptor';

const descriptor = mongoDescriptor;
const lookup: LookupFunction = () => undefined;
const options = (mode: string, secrets: ConnectionSecrets = {}) =>
  mongoClientOptions(mode, secrets, DEFAULT_CONNECTOR_TIMEOUTS, lookup);

describe(mongoConnectionString.name, () => {
  it('builds user, password, host, port, database and the admin authSource for stored connections', () => {
    expect(mongoConnectionString(descriptor(), {}, { password: 's3cret' })).toBe(
      'mongodb://reader:s3cret@db.example.com:27017/crm?authSource=admin&directConnection=true',
    );
  });

  it('defaults authSource to the database for internal datasources', () => {
    expect(mongoConnectionString(descriptor(), { internal: true }, { password: 'p' })).toBe(
      'mongodb://reader:p@db.example.com:27017/crm?authSource=crm&directConnection=true',
    );
  });

  it('takes authSource from the metadata when given, for both kinds', () => {
    const metadata = { authSource: 'users' };
    expect(mongoConnectionString(descriptor(), { metadata })).toContain('?authSource=users');
    expect(mongoConnectionString(descriptor(), { metadata, internal: true })).toContain('?authSource=users');
    expect(mongoConnectionString(descriptor(), { metadata: { authSource: '' } })).toContain('?authSource=admin&directConnection=true');
  });

  it('always connects directly, whatever the metadata says, so that no announced member is dialled', () => {
    for (const value of ['true', 'TRUE', '1', 'false', '']) {
      expect(mongoConnectionString(descriptor(), { metadata: { directConnection: value } })).toMatch(
        /\?authSource=admin&directConnection=true$/,
      );
    }
  });

  it('URL-encodes the user and the password so that the driver reads them back unchanged', () => {
    const user = 'ana:b@c/d?e#f[g]%';
    const password = 'p@ss:w/rd?#[]%+ é';
    const uri = mongoConnectionString(descriptor({ userName: user }), {}, { password });
    // The constructor parses the string without any I/O.
    const parsed = new MongoClient(uri).options;
    expect(parsed.credentials).toMatchObject({ username: user, password, source: 'admin' });
    expect(parsed.hosts.map(String)).toEqual(['db.example.com:27017']);
    expect(parsed.dbName).toBe('crm');
  });

  it('has no userinfo without a user, and no password part without a password', () => {
    expect(mongoConnectionString(descriptor({ userName: '' }), {}, { password: 'ignored' })).toBe(
      'mongodb://db.example.com:27017/crm?authSource=admin&directConnection=true',
    );
    expect(mongoConnectionString(descriptor(), {})).toBe('mongodb://reader@db.example.com:27017/crm?authSource=admin&directConnection=true');
  });

  it('brackets IPv6 literals and keeps IPv4 literals and hostnames as they are', () => {
    expect(mongoConnectionString(descriptor({ host: '::1', userName: '' }), {})).toBe('mongodb://[::1]:27017/crm?authSource=admin&directConnection=true');
    expect(mongoConnectionString(descriptor({ host: '[::1]', userName: '' }), {})).toBe('mongodb://[::1]:27017/crm?authSource=admin&directConnection=true');
    expect(mongoConnectionString(descriptor({ host: '10.1.2.3', userName: '' }), {})).toBe(
      'mongodb://10.1.2.3:27017/crm?authSource=admin&directConnection=true',
    );
  });
});

describe(mongoClientOptions.name, () => {
  it('bounds connect and server selection at 5 s, the pool at 2, and pins through the lookup hook', () => {
    expect(options('')).toMatchObject({
      connectTimeoutMS: 5000,
      serverSelectionTimeoutMS: 5000,
      maxPoolSize: 2,
      useBigInt64: true,
      lookup,
    });
  });

  it.each(['', 'false', 'disable'])('turns TLS off for %j and passes no TLS material', (mode) => {
    const built = options(mode, { ssl: { ca: 'CA', cert: 'CERT', key: 'KEY' } });
    expect(built.tls).toBe(false);
    expect(built).not.toHaveProperty('ca');
    expect(built).not.toHaveProperty('tlsInsecure');
  });

  it.each(['true', 'enable'])('turns TLS on with verification for %j', (mode) => {
    const built = options(mode);
    expect(built.tls).toBe(true);
    expect(built).not.toHaveProperty('tlsInsecure');
  });

  it('turns TLS on without certificate or hostname checks for insecure', () => {
    expect(options('insecure')).toMatchObject({ tls: true, tlsInsecure: true });
  });

  it('passes the PEM CA, client certificate and key as TLS options', () => {
    expect(options('true', { ssl: { ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' } })).toMatchObject({
      ca: 'CA-PEM',
      cert: 'CERT-PEM',
      key: 'KEY-PEM',
    });
    const partial = options('true', { ssl: { ca: 'CA-PEM', cert: '' } });
    expect(partial.ca).toBe('CA-PEM');
    expect(partial).not.toHaveProperty('cert');
    expect(partial).not.toHaveProperty('key');
  });

  it('never sets the TLS servername, so the driver derives it from each hostname', () => {
    expect(options('true')).not.toHaveProperty('servername');
  });

  it('uses overridden timeouts', () => {
    const built = mongoClientOptions('', {}, { ...DEFAULT_CONNECTOR_TIMEOUTS, mongoConnectMs: 1234 }, lookup);
    expect(built).toMatchObject({ connectTimeoutMS: 1234, serverSelectionTimeoutMS: 1234 });
  });
});

describe('MONGO_SSL_MODES', () => {
  it('is the documented MongoDB SSL mode allowlist', () => {
    expect(MONGO_SSL_MODES).toEqual(['disable', 'false', 'true', 'enable', 'insecure']);
  });
});
