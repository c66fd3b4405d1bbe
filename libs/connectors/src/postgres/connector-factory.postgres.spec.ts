import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import { SslModeNotAllowedError } from '../common/errors';
import { PostgresConnectorFactory } from './connector-factory.postgres';
import { PostgresConnector } from './connector.postgres';

const descriptor = (overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor => ({
  configName: 'crm',
  type: 'POSTGRESQL',
  host: 'db.example.com',
  port: 5432,
  databaseName: 'sales',
  userName: 'reader',
  ...overrides,
});

describe(PostgresConnectorFactory.name, () => {
  const sut = new PostgresConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: [] } });

  it.each(['', 'disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', undefined])('builds a connector for ssl mode %j without I/O', async (sslMode) => {
    const connector = sut.build(descriptor({ sslMode, type: 'postgresql' }));
    expect(connector).toBeInstanceOf(PostgresConnector);
    await connector.close(); // nothing was opened
  });

  it.each(['REQUIRE', 'true', 'verify_full', ' require'])('refuses the ssl mode %j with the typed cause', (sslMode) => {
    const error = (() => {
      try {
        sut.build(descriptor({ sslMode }));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'validation', message: 'ssl mode is not supported for this datasource type' });
    expect((error as EngineError).cause).toBeInstanceOf(SslModeNotAllowedError);
  });

  it.each([
    ['another type', { type: 'MYSQL' }],
    ['a blank host', { host: ' ' }],
    ['port 0', { port: 0 }],
    ['port 65536', { port: 65_536 }],
    ['a fractional port', { port: 54.5 }],
  ])('refuses %s', (_what, overrides) => {
    expect(() => sut.build(descriptor(overrides))).toThrow(EngineError);
  });

  it('refuses invalid timeout overrides when it is built, not on first use', () => {
    expect(() => new PostgresConnectorFactory({ hostSafety: { allowPrivate: true, allowlist: [] }, timeouts: { queryMs: -1 } })).toThrow(EngineError);
  });
});
