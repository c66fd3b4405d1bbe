import type { ConnectionDescriptor } from '@fetcher/engine';
import { SslModeNotAllowedError } from '../common/errors';
import { MysqlConnectorFactory } from './connector-factory.mysql';

const descriptor = (patch: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor => ({
  configName: 'crm',
  type: 'MySQL',
  host: 'db.example.com',
  port: 3306,
  databaseName: 'shop',
  userName: 'reader',
  ...patch,
});

describe(MysqlConnectorFactory.name, () => {
  const lookup = jest.fn();
  const sut = new MysqlConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: [] }, lookup });

  it('builds a connector without any I/O, for every allowed mode', () => {
    for (const sslMode of ['', 'false', 'true', 'skip-verify', 'preferred', undefined]) {
      const connector = sut.build(descriptor({ sslMode }));
      expect(typeof connector.testConnection).toBe('function');
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each(['require', 'TRUE', 'disable', 'verify-full'])('refuses ssl mode %j with the typed cause', (sslMode) => {
    let error: unknown;
    try {
      sut.build(descriptor({ sslMode }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ category: 'validation', message: 'ssl mode is not supported for this datasource type' });
    expect((error as { cause: unknown }).cause).toBeInstanceOf(SslModeNotAllowedError);
  });

  it('refuses another type, a blank host and a bad port', () => {
    expect(() => sut.build(descriptor({ type: 'POSTGRESQL' }))).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource type does not match the connector' }));
    expect(() => sut.build(descriptor({ host: '' }))).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource host is required' }));
    expect(() => sut.build(descriptor({ port: 70_000 }))).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource port is invalid' }));
  });

  it('refuses invalid timeouts when it is built', () => {
    expect(() => new MysqlConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: [] }, timeouts: { queryMs: -1 } })).toThrow(expect.objectContaining({ category: 'validation', message: 'connector timeouts are invalid' }));
  });
});
