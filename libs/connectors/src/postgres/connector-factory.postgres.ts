import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfig } from '../sql/sql-connector-config';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { POSTGRES_SSL_MODES } from './connection-options.postgres';
import { PostgresConnector } from './connector.postgres';

/** Builds PostgreSQL connectors. `build` checks the descriptor (type, host, port, SSL mode) and does no I/O. */
export class PostgresConnectorFactory extends SqlConnectorFactory {
  constructor(options: ConnectorOptions) {
    super(options, 'POSTGRESQL', POSTGRES_SSL_MODES);
  }

  protected override createConnector(config: SqlConnectorConfig): Connector {
    return new PostgresConnector(config);
  }
}
