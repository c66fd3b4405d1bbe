import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfigWithDriver } from '../sql/sql-connector-config';
import { lazyModule } from '../common/lazy-module';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { ORACLE_SSL_MODES } from './connection-options.oracle';
import type { OracleDriver } from './oracledb-driver.oracle';

// The connector module pulls in its driver: it is loaded when the first connector of this type is
// built, so a process that never dials this type never loads the driver.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose, typed through typeof import
const connectorModule = lazyModule(() => require('./connector.oracle') as typeof import('./connector.oracle'));

/**
 * Builds Oracle connectors. `build` checks the descriptor and does no I/O; a missing
 * `metadata.serviceName` fails the dial (a connect error), as the Manager's FET-1040 expects.
 */
export class OracleConnectorFactory extends SqlConnectorFactory<OracleDriver> {
  /** `driver` replaces oracledb in unit tests; hosts leave it out. */
  constructor(options: ConnectorOptions, driver?: OracleDriver) {
    super(options, 'ORACLE', ORACLE_SSL_MODES, driver);
  }

  protected override createConnector(config: SqlConnectorConfigWithDriver<OracleDriver>): Connector {
    return new (connectorModule().OracleConnector)(config);
  }
}
