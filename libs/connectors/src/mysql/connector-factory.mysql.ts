import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfig } from '../sql/sql-connector-config';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { MYSQL_SSL_MODES } from './connection-options.mysql';
import { MysqlConnector } from './connector.mysql';

/** Builds MySQL/MariaDB connectors. `build` checks the descriptor and does no I/O. */
export class MysqlConnectorFactory extends SqlConnectorFactory {
  constructor(options: ConnectorOptions) {
    super(options, 'MYSQL', MYSQL_SSL_MODES);
  }

  protected override createConnector(config: SqlConnectorConfig): Connector {
    return new MysqlConnector(config);
  }
}
