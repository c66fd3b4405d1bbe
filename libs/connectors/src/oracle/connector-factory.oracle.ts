import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfigWithDriver } from '../sql/sql-connector-config';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { ORACLE_SSL_MODES } from './connection-options.oracle';
import { OracleConnector } from './connector.oracle';
import type { OracleDriver } from './oracledb-driver.oracle';

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
    return new OracleConnector(config);
  }
}
