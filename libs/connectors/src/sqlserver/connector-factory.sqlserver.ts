import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfigWithDriver } from '../sql/sql-connector-config';
import { lazyModule } from '../common/lazy-module';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { SQLSERVER_SSL_MODES } from './connection-options.sqlserver';
import type { SqlServerDriver } from './mssql-driver.sqlserver';

// The connector module pulls in its driver: it is loaded when the first connector of this type is
// built, so a process that never dials this type never loads the driver.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose, typed through typeof import
const connectorModule = lazyModule(() => require('./connector.sqlserver') as typeof import('./connector.sqlserver'));

/** Builds SQL Server connectors. `build` checks the descriptor and does no I/O. */
export class SqlServerConnectorFactory extends SqlConnectorFactory<SqlServerDriver> {
  /** `driver` replaces mssql in unit tests; hosts leave it out. */
  constructor(options: ConnectorOptions, driver?: SqlServerDriver) {
    super(options, 'SQL_SERVER', SQLSERVER_SSL_MODES, driver);
  }

  protected override createConnector(config: SqlConnectorConfigWithDriver<SqlServerDriver>): Connector {
    return new (connectorModule().SqlServerConnector)(config);
  }
}
