import { MongoServerError } from 'mongodb';
import { mongoConnectReason } from '../mongodb/connect-reason.mongodb';
import { mysqlConnectReason } from '../mysql/connect-reason.mysql';
import { oracleConnectReason } from '../oracle/connect-reason.oracle';
import { postgresConnectReason } from '../postgres/connect-reason.postgres';
import { sqlServerConnectReason } from '../sqlserver/connect-reason.sqlserver';
import { connectReason, nodeReason } from './connect-reason';

const coded = (code: unknown, extra: Record<string, unknown> = {}): Error => Object.assign(new Error('text is never read'), { code, ...extra });

describe(connectReason.name, () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ETIMEDOUT', 'timeout'],
    ['ENOTFOUND', 'host_not_found'],
    ['EAI_AGAIN', 'host_not_found'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['EPIPE', undefined],
    [42, undefined],
  ])('reads Node code %p as %p', (code, reason) => {
    expect(nodeReason(coded(code))).toBe(reason);
  });

  it('finds a code through cause, originalError, AggregateError and a MongoDB topology', () => {
    expect(connectReason(new Error('outer', { cause: coded('ECONNREFUSED') }))).toBe('refused');
    expect(connectReason(coded('ESOCKET', { originalError: coded('ENOTFOUND') }))).toBe('host_not_found');
    expect(connectReason(new AggregateError([new Error('a'), coded('ETIMEDOUT')]))).toBe('timeout');
    const servers = new Map([['h:1', { error: new Error('net', { cause: coded('ECONNREFUSED') }) }]]);
    expect(connectReason(Object.assign(new Error('selection'), { reason: { servers } }))).toBe('refused');
  });

  it('lets the driver code win, ignores message text, survives cycles and throwing getters', () => {
    expect(connectReason(coded('ER_X', { cause: coded('ECONNREFUSED') }), () => 'authentication')).toBe('authentication');
    expect(connectReason(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBeUndefined();
    const cyclic: { cause?: unknown } & Error = new Error('c');
    cyclic.cause = cyclic;
    expect(connectReason(cyclic)).toBeUndefined();
    const hostile = new Proxy(new Error('p'), { get: () => { throw new Error('trap'); } });
    expect(connectReason(hostile)).toBeUndefined();
    expect(connectReason(undefined)).toBeUndefined();
  });
});

describe('driver codes', () => {
  it.each([
    ['28P01', 'authentication'],
    ['28000', 'authentication'],
    ['3D000', 'unknown_database'],
    ['57014', undefined],
  ])('PostgreSQL SQLSTATE %s is %p', (state, reason) => {
    expect(postgresConnectReason(coded(state))).toBe(reason);
  });

  it.each([
    [1045, 'authentication'],
    [1044, 'authentication'],
    [1698, 'authentication'],
    [1049, 'unknown_database'],
    [1146, undefined],
  ])('MySQL/MariaDB errno %i is %p', (errno, reason) => {
    expect(mysqlConnectReason(coded('ER_ANY', { errno, sqlState: '28000' }))).toBe(reason);
  });

  it('MySQL: an OS errno without a SQLSTATE is no server error; a refused TLS handshake is tls', () => {
    expect(mysqlConnectReason(coded('ECONNREFUSED', { errno: 1045 }))).toBeUndefined();
    expect(mysqlConnectReason(coded('HANDSHAKE_NO_SSL_SUPPORT'))).toBe('tls');
  });

  it.each([
    ['ELOGIN', 'authentication'],
    ['ETIMEOUT', 'timeout'],
    ['EINSTLOOKUP', 'host_not_found'],
    ['EENCRYPT', 'tls'],
    ['ESOCKET', undefined],
  ])('SQL Server (tedious) %s is %p', (code, reason) => {
    expect(sqlServerConnectReason(coded(code))).toBe(reason);
  });

  it.each([
    ['ORA-01017', 'authentication'],
    ['ORA-28000', 'authentication'],
    ['ORA-12514', 'unknown_database'],
    ['NJS-518', 'unknown_database'],
    ['NJS-511', 'refused'],
    ['NJS-510', 'timeout'],
    ['ORA-12545', 'host_not_found'],
    ['NJS-506', 'tls'],
    ['ORA-00942', undefined],
  ])('Oracle %s is %p', (code, reason) => {
    expect(oracleConnectReason(coded(code))).toBe(reason);
  });

  it('MongoDB: AuthenticationFailed (18) is authentication, a socket error below it is read through the chain', () => {
    expect(mongoConnectReason(new MongoServerError({ code: 18, errmsg: 'x' }))).toBe('authentication');
    expect(mongoConnectReason(new Error('net', { cause: coded('ECONNREFUSED') }))).toBe('refused');
    expect(mongoConnectReason(new Error('plain'))).toBeUndefined();
  });
});
