import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { ConnectionDescriptor } from '@fetcher/engine';
import { DEFAULT_CONNECTOR_TIMEOUTS } from '../common/timeouts';
import { MYSQL_SESSION_SQL, MYSQL_SSL_MODES, mysqlPoolOptions, mysqlSslOptions, pinnedSocketFactory } from './connection-options.mysql';

const descriptor: ConnectionDescriptor = {
  configName: 'crm',
  type: 'MYSQL',
  host: 'db.example.com',
  port: 3307,
  databaseName: 'shop',
  userName: 'reader',
};
const target = { address: '10.0.0.5', family: 4 as const, servername: 'db.example.com' };
const PEM = { ca: 'CA', cert: 'CERT', key: 'KEY' };

describe('MySQL connection options', () => {
  it('allows exactly the documented SSL modes', () => {
    expect(MYSQL_SSL_MODES).toEqual(['false', 'true', 'skip-verify', 'preferred']);
  });

  it.each([
    ['', undefined],
    ['false', undefined],
    ['true', { ca: 'CA', cert: 'CERT', key: 'KEY', rejectUnauthorized: true, verifyIdentity: true }],
    ['skip-verify', { ca: 'CA', cert: 'CERT', key: 'KEY', rejectUnauthorized: false, verifyIdentity: false }],
    ['preferred', { ca: 'CA', cert: 'CERT', key: 'KEY', rejectUnauthorized: false, verifyIdentity: false }],
  ])('mode %j maps to %j', (mode, expected) => {
    expect(mysqlSslOptions(mode, PEM)).toEqual(expected);
  });

  it('verifies against the system store when no CA is given', () => {
    expect(mysqlSslOptions('true', undefined)).toEqual({ rejectUnauthorized: true, verifyIdentity: true });
  });

  it('keeps the original host for TLS and opens the socket to the checked address', () => {
    const calls: unknown[] = [];
    const socket = Object.assign(new EventEmitter(), { setNoDelay: jest.fn() }) as unknown as Socket;
    const options = mysqlPoolOptions({
      descriptor,
      secrets: { password: 'pw' },
      target,
      ssl: mysqlSslOptions('true', undefined),
      timeouts: DEFAULT_CONNECTOR_TIMEOUTS,
      connect: (opts) => {
        calls.push(opts);
        return socket;
      },
    });
    expect(options.host).toBe('db.example.com');
    expect((options.stream as () => Socket)()).toBe(socket);
    expect(calls).toEqual([{ host: '10.0.0.5', port: 3307, family: 4 }]);
    expect(socket.setNoDelay).toHaveBeenCalledWith(true);
  });

  it('asks mysql2 for exact values and a pool of two', () => {
    const options = mysqlPoolOptions({ descriptor, secrets: { password: 'pw' }, target, ssl: undefined, timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect(options).toMatchObject({
      port: 3307,
      user: 'reader',
      password: 'pw',
      database: 'shop',
      connectTimeout: 10_000,
      connectionLimit: 2,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      multipleStatements: false,
      charset: 'UTF8MB4_UNICODE_CI',
    });
    expect(options).not.toHaveProperty('ssl');
  });

  it('sends no password and no database when there are none', () => {
    const options = mysqlPoolOptions({ descriptor: { ...descriptor, databaseName: '' }, secrets: {}, target, ssl: undefined, timeouts: DEFAULT_CONNECTOR_TIMEOUTS });
    expect(options).not.toHaveProperty('password');
    expect(options).not.toHaveProperty('database');
  });

  it('pins through a factory usable for every new connection', () => {
    const connect = jest.fn(() => Object.assign(new EventEmitter(), { setNoDelay: () => undefined }) as unknown as Socket);
    const factory = pinnedSocketFactory({ address: '2001:db8::5', family: 6, servername: 'db.example.com' }, 3306, connect);
    factory();
    factory();
    expect(connect).toHaveBeenCalledTimes(2);
    expect(connect).toHaveBeenLastCalledWith({ host: '2001:db8::5', port: 3306, family: 6 });
  });

  it('sets the session to UTC and re-enables backslash escapes', () => {
    expect(MYSQL_SESSION_SQL).toContain("time_zone = '+00:00'");
    expect(MYSQL_SESSION_SQL).toContain("'NO_BACKSLASH_ESCAPES'");
  });
});
