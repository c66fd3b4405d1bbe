// The public API of @fetcher/connectors: the registry hosts hand to createEngine, the per-type
// factories and connectors, host safety, the typed error causes hosts map to FET codes, and the
// naming rules hosts apply to requests. Everything else in src/ is internal.
export { createConnectorRegistry, sslModesFor } from './registry';

export { connectorAttributes, connectorSecrets, type ConnectorAttributes } from './common/attributes';
export { resolveTimeouts, type ConnectorOptions } from './common/options';
export { DEFAULT_CONNECTOR_TIMEOUTS, queryTimeoutMs, type ConnectorTimeouts } from './common/timeouts';
export {
  HostNotAllowedError,
  SslModeNotAllowedError,
  connectError,
  hostNotAllowed,
  sslModeNotAllowed,
} from './common/errors';
export {
  DEFAULT_HOST_SAFETY_POLICY,
  checkHostLiteral,
  classifyAddress,
  invalidAllowlistEntries,
  resolveDialTarget,
  type AddressClass,
  type DialTarget,
  type HostSafetyPolicy,
  type LookupFn,
} from './common/host-safety';
export {
  isSystemObject,
  normaliseTableKey,
  parseDatasourceType,
  splitTableKey,
  type DatasourceType,
} from './common/naming';

// Factories only at runtime: each loads its connector (and driver) when it builds the first one.
// The connector classes are exported as types, since a runtime export would load every driver.
export { PostgresConnectorFactory } from './postgres/connector-factory.postgres';
export type { PostgresConnector } from './postgres/connector.postgres';
export { MysqlConnectorFactory } from './mysql/connector-factory.mysql';
export type { MysqlConnector } from './mysql/connector.mysql';
export { SqlServerConnectorFactory } from './sqlserver/connector-factory.sqlserver';
export type { SqlServerConnector } from './sqlserver/connector.sqlserver';
export { OracleConnectorFactory } from './oracle/connector-factory.oracle';
export type { OracleConnector } from './oracle/connector.oracle';
export { MongoConnectorFactory } from './mongodb/connector-factory.mongodb';
export type { MongoConnector } from './mongodb/connector.mongodb';
