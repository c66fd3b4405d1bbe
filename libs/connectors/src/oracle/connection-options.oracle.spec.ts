import type { ConnectionDescriptor } from '@fetcher/engine';
import { DEFAULT_CONNECTOR_TIMEOUTS } from '../common/timeouts';
import {
  ORACLE_SSL_MODES,
  OracleDialError,
  needsPinningProxy,
  oracleConnectString,
  oraclePoolAttributes,
  oracleServiceName,
  oracleTls,
  oracleWalletContent,
} from './connection-options.oracle';

const descriptor: ConnectionDescriptor = {
  configName: 'hr',
  type: 'ORACLE',
  host: 'ora.example.com',
  port: 2484,
  databaseName: 'ignored',
  userName: 'hr_reader',
};
const target = { address: '10.9.8.7', family: 4 as const, servername: 'ora.example.com' };
const PEM = { ca: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----', cert: 'CERT', key: 'KEY' };
const attributes = () => ({ metadata: { serviceName: 'ORCLPDB1' } });
const secrets = (extra: object = {}) => ({ password: 'pw', ...extra });

describe('Oracle connection options', () => {
  it('allows exactly the documented SSL modes', () => {
    expect(ORACLE_SSL_MODES).toEqual(['disable', 'false', 'true', 'enable', 'verify', 'skip-verify']);
  });

  it.each([
    ['', undefined],
    ['disable', undefined],
    ['false', undefined],
    ['true', { dnMatch: false }],
    ['enable', { dnMatch: false }],
    ['verify', { dnMatch: true }],
  ])('mode %j is %j', (mode, tls) => {
    expect(oracleTls(mode)).toEqual(tls);
  });

  it('refuses skip-verify with an error naming the mode, because thin mode always verifies', () => {
    expect(() => oracleTls('skip-verify')).toThrow(OracleDialError);
    expect(() => oracleTls('skip-verify')).toThrow('ssl mode skip-verify is not supported by the oracledb thin driver');
  });

  it('requires a well-formed metadata.serviceName', () => {
    expect(oracleServiceName(attributes())).toBe('ORCLPDB1');
    expect(() => oracleServiceName({})).toThrow('metadata.serviceName is required for Oracle');
    expect(() => oracleServiceName({ metadata: { serviceName: ' ' } })).toThrow('metadata.serviceName is required for Oracle');
    expect(() => oracleServiceName({ metadata: { serviceName: 'x)(HOST=evil' } })).toThrow(OracleDialError);
    expect(oracleServiceName({ metadata: { serviceName: 'sales.example.com' } })).toBe('sales.example.com');
  });

  it('puts the client certificate first, then its key, then the CA into walletContent', () => {
    expect(oracleWalletContent(PEM)).toBe(`CERT\nKEY\n${PEM.ca}\n`);
    expect(oracleWalletContent({ cert: 'CERT', key: 'KEY' })).toBe('CERT\nKEY\n');
    expect(oracleWalletContent(undefined)).toBeUndefined();
    expect(oracleWalletContent({})).toBeUndefined();
  });

  it('refuses a CA without a client key, which thin mode cannot load', () => {
    expect(() => oracleWalletContent({ ca: PEM.ca })).toThrow('the oracledb thin driver needs the client certificate and key together with a CA');
  });

  it('uses Easy Connect for TCP, bracketing IPv6', () => {
    const base = { port: 1521, serviceName: 'ORCL', tls: undefined, timeouts: DEFAULT_CONNECTOR_TIMEOUTS };
    expect(oracleConnectString({ ...base, host: '10.9.8.7', family: 4 })).toBe('10.9.8.7:1521/ORCL');
    expect(oracleConnectString({ ...base, host: '2001:db8::1', family: 6 })).toBe('[2001:db8::1]:1521/ORCL');
  });

  it('uses a TCPS descriptor with the DN-match switch for TLS', () => {
    expect(
      oracleConnectString({ host: '10.9.8.7', family: 4, port: 2484, serviceName: 'ORCL', tls: { dnMatch: true }, timeouts: DEFAULT_CONNECTOR_TIMEOUTS }),
    ).toBe(
      '(DESCRIPTION=(CONNECT_TIMEOUT=10)(TRANSPORT_CONNECT_TIMEOUT=10)(RETRY_COUNT=0)' +
        '(ADDRESS=(PROTOCOL=TCPS)(HOST=10.9.8.7)(PORT=2484))(CONNECT_DATA=(SERVICE_NAME=ORCL))(SECURITY=(SSL_SERVER_DN_MATCH=yes)))',
    );
  });

  it('dials the checked address in every mode that does not match the host name', () => {
    for (const sslMode of ['', 'false', 'true', 'enable']) {
      const pool = oraclePoolAttributes({ descriptor, attributes: attributes(), secrets: secrets(), target, sslMode, timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
      expect(pool.connectString).toContain('10.9.8.7');
      expect(pool.connectString).not.toContain('ora.example.com');
      expect(needsPinningProxy(sslMode, target)).toBe(false);
    }
  });

  it('TCPS with chain verification only: DN match off, wallet passed', () => {
    const pool = oraclePoolAttributes({ descriptor, attributes: attributes(), secrets: secrets({ ssl: PEM }), target, sslMode: 'true', timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect(pool).toMatchObject({
      user: 'hr_reader',
      password: 'pw',
      sslServerDNMatch: false,
      walletContent: `CERT\nKEY\n${PEM.ca}\n`,
      poolMin: 0,
      poolMax: 2,
      connectTimeout: 10,
      transportConnectTimeout: 10,
    });
    expect(pool.connectString).toContain('(PROTOCOL=TCPS)(HOST=10.9.8.7)(PORT=2484)');
    expect(pool.connectString).toContain('(SSL_SERVER_DN_MATCH=no)');
  });

  it('verify with a hostname: HOST keeps the name for the DN match and the hop goes through the pinning proxy', () => {
    expect(needsPinningProxy('verify', target)).toBe(true);
    expect(needsPinningProxy('verify', { ...target, servername: '' })).toBe(false);
    const pool = oraclePoolAttributes({
      descriptor,
      attributes: attributes(),
      secrets: secrets(),
      target,
      sslMode: 'verify',
      timeouts: DEFAULT_CONNECTOR_TIMEOUTS,
      proxy: { host: '127.0.0.1', port: 40001 },
    });
    expect(pool.sslServerDNMatch).toBe(true);
    expect(pool.connectString).toContain(
      '(ADDRESS=(PROTOCOL=TCPS)(HOST=ora.example.com)(PORT=2484)(HTTPS_PROXY=127.0.0.1)(HTTPS_PROXY_PORT=40001))',
    );
    expect(pool.connectString).toContain('(SSL_SERVER_DN_MATCH=yes)');
  });

  it('plain TCP has no TLS settings and no wallet, even with PEM material present', () => {
    const pool = oraclePoolAttributes({ descriptor, attributes: attributes(), secrets: secrets({ ssl: { ca: PEM.ca } }), target, sslMode: '', timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect(pool.connectString).toBe('10.9.8.7:2484/ORCLPDB1');
    expect(pool).not.toHaveProperty('walletContent');
    expect(pool).not.toHaveProperty('sslServerDNMatch');
  });
});
