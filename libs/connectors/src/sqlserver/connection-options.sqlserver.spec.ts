import type { ConnectionDescriptor } from '@fetcher/engine';
import { DEFAULT_CONNECTOR_TIMEOUTS } from '../common/timeouts';
import { SQLSERVER_SSL_MODES, sqlServerEncryption, sqlServerPoolConfig } from './connection-options.sqlserver';

const descriptor: ConnectionDescriptor = {
  configName: 'erp',
  type: 'SQL_SERVER',
  host: 'sql.example.com',
  port: 1433,
  databaseName: 'Erp',
  userName: 'reader',
};
const target = { address: '10.1.2.3', family: 4 as const, servername: 'sql.example.com' };
const PEM = { ca: '-----CA-----', cert: '-----CERT-----', key: '-----KEY-----' };

const build = (sslMode: string, ssl?: typeof PEM | { ca: string }) =>
  sqlServerPoolConfig({
    descriptor,
    secrets: { password: 'pw', ...(ssl ? { ssl } : {}) },
    target,
    sslMode,
    timeouts: DEFAULT_CONNECTOR_TIMEOUTS,
  });

describe('SQL Server connection options', () => {
  it('allows exactly the documented SSL modes', () => {
    expect(SQLSERVER_SSL_MODES).toEqual(['disable', 'false', 'true', 'strict']);
  });

  it.each([
    ['', { encrypt: false, trustServerCertificate: false }],
    ['disable', { encrypt: false, trustServerCertificate: false }],
    ['false', { encrypt: false, trustServerCertificate: false }],
    ['true', { encrypt: true, trustServerCertificate: true }],
    ['strict', { encrypt: 'strict', trustServerCertificate: false }],
  ])('mode %j encrypts as %j', (mode, expected) => {
    expect(sqlServerEncryption(mode)).toEqual(expected);
    expect(build(mode).options).toMatchObject(expected);
  });

  it('dials the checked address while TLS verifies the original hostname', () => {
    const config = build('strict');
    expect(config.server).toBe('10.1.2.3');
    expect(config.options?.serverName).toBe('sql.example.com');
  });

  it('sets no server name for an IP literal host', () => {
    const config = sqlServerPoolConfig({
      descriptor: { ...descriptor, host: '10.1.2.3' },
      secrets: {},
      target: { ...target, servername: '' },
      sslMode: '',
      timeouts: DEFAULT_CONNECTOR_TIMEOUTS,
    });
    expect(config.options).not.toHaveProperty('serverName');
    expect(config).not.toHaveProperty('password');
  });

  it('passes CA, client certificate and key to tedious', () => {
    expect(build('strict', PEM).options?.cryptoCredentialsDetails).toEqual(PEM);
    expect(build('true', { ca: PEM.ca }).options?.cryptoCredentialsDetails).toEqual({ ca: PEM.ca });
    expect(build('strict').options).not.toHaveProperty('cryptoCredentialsDetails');
  });

  it('carries credentials, database, UTC, timeouts and a pool of two', () => {
    const config = build('');
    expect(config).toMatchObject({
      port: 1433,
      user: 'reader',
      password: 'pw',
      database: 'Erp',
      connectionTimeout: 10_000,
      requestTimeout: 120_000,
      pool: { min: 0, max: 2 },
    });
    expect(config.options).toMatchObject({ useUTC: true, connectTimeout: 10_000, requestTimeout: 120_000 });
  });
});
