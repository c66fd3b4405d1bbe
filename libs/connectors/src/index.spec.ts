import * as connectors from '@fetcher/connectors';

describe('@fetcher/connectors public API', () => {
  it('exports the registry, every factory (connectors as types only), host safety, errors and naming helpers', () => {
    for (const name of [
      'createConnectorRegistry', 'sslModesFor', 'connectorAttributes', 'resolveTimeouts', 'queryTimeoutMs',
      'HostNotAllowedError', 'SslModeNotAllowedError', 'connectError', 'hostNotAllowed', 'sslModeNotAllowed',
      'checkHostLiteral', 'resolveDialTarget', 'classifyAddress', 'invalidAllowlistEntries',
      'isSystemObject', 'normaliseTableKey', 'parseDatasourceType', 'splitTableKey',
      'PostgresConnectorFactory', 'MysqlConnectorFactory', 'SqlServerConnectorFactory', 'OracleConnectorFactory',
      'MongoConnectorFactory', 'connectorSecrets',
    ]) {
      expect(typeof (connectors as Record<string, unknown>)[name]).toBe('function');
    }
    expect(connectors.DEFAULT_HOST_SAFETY_POLICY).toEqual({ allowPrivate: true, allowlist: [] });
    expect(connectors.DEFAULT_CONNECTOR_TIMEOUTS).toEqual({
      connectMs: 10_000, mongoConnectMs: 5000, discoveryMs: 30_000, queryMs: 60_000, filteredQueryMs: 120_000,
    });
  });

  it('builds a registry from the package root that resolves every type', () => {
    const registry = connectors.createConnectorRegistry({ hostSafety: connectors.DEFAULT_HOST_SAFETY_POLICY });
    expect(registry.connector('mongodb')).toBeInstanceOf(connectors.MongoConnectorFactory);
    expect(registry.connector('postgresql')).toBeInstanceOf(connectors.PostgresConnectorFactory);
    expect(registry.connector('unknown')).toBeUndefined();
  });
});
