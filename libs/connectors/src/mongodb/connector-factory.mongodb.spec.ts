import { EngineError, type ConnectionDescriptor } from '@fetcher/engine';
import { SslModeNotAllowedError } from '../common/errors';
import type { ConnectorOptions } from '../common/options';
import { MongoConnector } from './connector.mongodb';
import { MongoConnectorFactory } from './connector-factory.mongodb';
import { mongoDescriptor } from './testing/mongo-descriptor';

const options: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: [] } };
const descriptor = (overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor => mongoDescriptor({ userName: '', ...overrides });

describe(MongoConnectorFactory.name, () => {
  const sut = new MongoConnectorFactory(options);

  it('builds a connector for a valid descriptor, whatever the type case', () => {
    expect(sut.build(descriptor())).toBeInstanceOf(MongoConnector);
    expect(sut.build(descriptor({ type: 'mongodb' }))).toBeInstanceOf(MongoConnector);
  });

  it.each(['', 'disable', 'false', 'true', 'enable', 'insecure', undefined])('accepts ssl mode %p', (sslMode) => {
    expect(sut.build(descriptor({ sslMode }))).toBeInstanceOf(MongoConnector);
  });

  it.each(['require', 'TRUE', 'skip-verify', 'verify-full'])('refuses ssl mode %p with the typed cause', (sslMode) => {
    const error = (() => {
      try {
        sut.build(descriptor({ sslMode }));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'validation', message: 'ssl mode is not supported for this datasource type' });
    expect((error as EngineError).cause).toBeInstanceOf(SslModeNotAllowedError);
  });

  it.each([0, -1, 65_536, 1.5, Number.NaN])('refuses port %p', (port) => {
    expect(() => sut.build(descriptor({ port }))).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource port is invalid' }));
  });

  it('refuses a blank host, a missing database and another type', () => {
    expect(() => sut.build(descriptor({ host: ' ' }))).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource host is required' }));
    expect(() => sut.build(descriptor({ databaseName: '' }))).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource database name is required' }));
    expect(() => sut.build(descriptor({ type: 'POSTGRESQL' }))).toThrow(EngineError);
  });

  it('refuses bad timeout overrides when constructed', () => {
    expect(() => new MongoConnectorFactory({ ...options, timeouts: { mongoConnectMs: -1 } })).toThrow(EngineError);
  });
});
