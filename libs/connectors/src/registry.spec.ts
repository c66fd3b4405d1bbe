import { EngineError, type ConnectionDescriptor, type ConnectorFactory } from '@fetcher/engine';
import { SslModeNotAllowedError } from './common/errors';
import type { LookupFn } from './common/host-safety';
import type { ConnectorOptions } from './common/options';
import { MongoConnectorFactory } from './mongodb/connector-factory.mongodb';
import { MysqlConnectorFactory } from './mysql/connector-factory.mysql';
import { OracleConnectorFactory } from './oracle/connector-factory.oracle';
import { PostgresConnectorFactory } from './postgres/connector-factory.postgres';
import { createConnectorRegistry, sslModesFor } from './registry';
import { SqlServerConnectorFactory } from './sqlserver/connector-factory.sqlserver';

/** Any DNS lookup would be I/O: build() must never ask. */
const lookups: string[] = [];
const recordingLookup: LookupFn = (hostname) => {
  lookups.push(hostname);
  return Promise.reject(new Error('no DNS in unit tests'));
};
const options: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: [] }, lookup: recordingLookup };

/** A valid descriptor per type, with a mode from the type's list. */
const VALID: Record<string, ConnectionDescriptor> = {
  POSTGRESQL: { configName: 'pg', type: 'POSTGRESQL', host: 'pg.example.com', port: 5432, databaseName: 'app', userName: 'u', sslMode: 'verify-full' },
  MYSQL: { configName: 'my', type: 'MYSQL', host: 'my.example.com', port: 3306, databaseName: 'app', userName: 'u', sslMode: 'true' },
  SQL_SERVER: { configName: 'ms', type: 'SQL_SERVER', host: 'ms.example.com', port: 1433, databaseName: 'app', userName: 'u', sslMode: 'strict' },
  ORACLE: {
    configName: 'ora', type: 'ORACLE', host: 'ora.example.com', port: 1521, databaseName: 'app', userName: 'u', sslMode: 'verify',
    hostAttributes: { metadata: { serviceName: 'ORCLPDB1' } },
  },
  MONGODB: { configName: 'mg', type: 'MONGODB', host: 'mg.example.com', port: 27017, databaseName: 'app', userName: 'u', sslMode: 'insecure' },
};

const FACTORY_CLASSES: Record<string, new (options: ConnectorOptions) => ConnectorFactory> = {
  POSTGRESQL: PostgresConnectorFactory,
  MYSQL: MysqlConnectorFactory,
  SQL_SERVER: SqlServerConnectorFactory,
  ORACLE: OracleConnectorFactory,
  MONGODB: MongoConnectorFactory,
};
const TYPES = Object.keys(FACTORY_CLASSES);

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe(createConnectorRegistry.name, () => {
  const sut = createConnectorRegistry(options);
  beforeEach(() => {
    lookups.length = 0;
  });

  it.each(TYPES)('resolves %s case-insensitively to its factory, the same one every time', (type) => {
    const variants = [type, type.toLowerCase(), type[0] + type.slice(1).toLowerCase()];
    const factories = variants.map((variant) => sut.connector(variant));
    for (const factory of factories) expect(factory).toBeInstanceOf(FACTORY_CLASSES[type]);
    expect(new Set(factories).size).toBe(1);
  });

  it.each(['', 'POSTGRES', 'MONGO', 'SQLSERVER', 'sql server', ' MYSQL', 'MYSQL ', 'REDIS'])('has no factory for %p', (type) => {
    expect(sut.connector(type)).toBeUndefined();
  });

  it.each(TYPES)('builds a %s connector without any I/O', (type) => {
    const connector = sut.connector(type)!.build(VALID[type]);
    expect(typeof connector.testConnection).toBe('function');
    expect(lookups).toEqual([]);
  });

  it.each(TYPES)('builds a %s connector that declares incremental support (the engine refuses incremental tables otherwise)', (type) => {
    expect(sut.connector(type)!.build(VALID[type]).supportsIncremental).toBe(true);
  });

  it.each(TYPES)('refuses a bad port for %s', (type) => {
    for (const port of [0, 65_536, -1, 1.5]) {
      const error = thrown(() => sut.connector(type)!.build({ ...VALID[type], port }));
      expect(error).toBeInstanceOf(EngineError);
      expect(error).toMatchObject({ category: 'validation' });
    }
  });

  it.each(TYPES)('refuses an unknown ssl mode for %s with the typed cause', (type) => {
    for (const sslMode of ['bogus', 'TRUE', 'verify_full']) {
      const error = thrown(() => sut.connector(type)!.build({ ...VALID[type], sslMode }));
      expect(error).toMatchObject({ category: 'validation', message: 'ssl mode is not supported for this datasource type' });
      expect((error as EngineError).cause).toBeInstanceOf(SslModeNotAllowedError);
    }
  });

  it.each(TYPES)('accepts every listed ssl mode and the default for %s', (type) => {
    for (const sslMode of ['', ...sslModesFor(type)!]) {
      expect(() => sut.connector(type)!.build({ ...VALID[type], sslMode })).not.toThrow();
    }
  });

  it('refuses a descriptor whose type does not match the factory', () => {
    expect(thrown(() => sut.connector('MYSQL')!.build(VALID.MONGODB))).toMatchObject({ category: 'validation' });
  });

  it('fails at construction on a bad timeout override', () => {
    expect(() => createConnectorRegistry({ ...options, timeouts: { queryMs: 0 } })).toThrow(EngineError);
  });
});

describe(sslModesFor.name, () => {
  it('lists each type\'s documented SSL modes', () => {
    expect(sslModesFor('postgresql')).toEqual(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']);
    expect(sslModesFor('MYSQL')).toEqual(['false', 'true', 'skip-verify', 'preferred']);
    expect(sslModesFor('SQL_SERVER')).toEqual(['disable', 'false', 'true', 'strict']);
    expect(sslModesFor('Oracle')).toEqual(['disable', 'false', 'true', 'enable', 'verify', 'skip-verify']);
    expect(sslModesFor('MONGODB')).toEqual(['disable', 'false', 'true', 'enable', 'insecure']);
    expect(sslModesFor('REDIS')).toBeUndefined();
  });
});
