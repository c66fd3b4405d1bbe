import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfigWithDriver } from '../sql/sql-connector-config';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { SQLSERVER_SSL_MODES } from './connection-options.sqlserver';
import { SqlServerConnector } from './connector.sqlserver';
import type { SqlServerDriver } from './mssql-driver.sqlserver';

/** Builds SQL Server connectors. `build` checks the descriptor and does no I/O. */
export class SqlServerConnectorFactory extends SqlConnectorFactory<SqlServerDriver> {
  /** `driver` replaces mssql in unit tests; hosts leave it out. */
  constructor(options: ConnectorOptions, driver?: SqlServerDriver) {
    super(options, 'SQL_SERVER', SQLSERVER_SSL_MODES, driver);
  }

  protected override createConnector(config: SqlConnectorConfigWithDriver<SqlServerDriver>): Connector {
    return new SqlServerConnector(config);
  }
}
