import type { ConnectorFactory, ConnectorRegistry } from '@fetcher/engine';
import { parseDatasourceType, type DatasourceType } from './common/naming';
import type { ConnectorOptions } from './common/options';
import { MONGO_SSL_MODES } from './mongodb/client-options.mongodb';
import { MongoConnectorFactory } from './mongodb/connector-factory.mongodb';
import { MYSQL_SSL_MODES } from './mysql/connection-options.mysql';
import { MysqlConnectorFactory } from './mysql/connector-factory.mysql';
import { ORACLE_SSL_MODES } from './oracle/connection-options.oracle';
import { OracleConnectorFactory } from './oracle/connector-factory.oracle';
import { POSTGRES_SSL_MODES } from './postgres/connection-options.postgres';
import { PostgresConnectorFactory } from './postgres/connector-factory.postgres';
import { SQLSERVER_SSL_MODES } from './sqlserver/connection-options.sqlserver';
import { SqlServerConnectorFactory } from './sqlserver/connector-factory.sqlserver';

/**
 * The engine's connector registry over the five datasource types.
 * Types match case-insensitively; anything else has no factory. The factories are built once, here,
 * so a bad option (a timeout override) fails when the host wires the registry, not on first use.
 */
export function createConnectorRegistry(options: ConnectorOptions): ConnectorRegistry {
  const factories: Readonly<Record<DatasourceType, ConnectorFactory>> = Object.freeze({
    POSTGRESQL: new PostgresConnectorFactory(options),
    MYSQL: new MysqlConnectorFactory(options),
    SQL_SERVER: new SqlServerConnectorFactory(options),
    ORACLE: new OracleConnectorFactory(options),
    MONGODB: new MongoConnectorFactory(options),
  });
  return Object.freeze({
    connector(type: string): ConnectorFactory | undefined {
      const known = parseDatasourceType(type);
      return known === undefined ? undefined : factories[known];
    },
  });
}

const SSL_MODES: Readonly<Record<DatasourceType, readonly string[]>> = Object.freeze({
  POSTGRESQL: POSTGRES_SSL_MODES,
  MYSQL: MYSQL_SSL_MODES,
  SQL_SERVER: SQLSERVER_SSL_MODES,
  ORACLE: ORACLE_SSL_MODES,
  MONGODB: MONGO_SSL_MODES,
});

/**
 * The SSL modes a type accepts (case-sensitive), for the Manager's
 * create/PATCH validation; `""` (the driver default) is accepted by every type and is not listed.
 * `undefined` for an unknown type.
 */
export function sslModesFor(type: string): readonly string[] | undefined {
  const known = parseDatasourceType(type);
  return known === undefined ? undefined : SSL_MODES[known];
}
