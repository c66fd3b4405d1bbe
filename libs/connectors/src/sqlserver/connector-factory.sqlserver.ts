import type { ConnectionDescriptor, Connector, ConnectorFactory } from '@fetcher/engine';
import { connectorAttributes } from '../common/attributes';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import type { ConnectorTimeouts } from '../common/timeouts';
import { checkSqlDescriptor } from '../sql/descriptor-checks';
import { SQLSERVER_SSL_MODES } from './connection-options.sqlserver';
import { SqlServerConnector } from './connector.sqlserver';
import type { SqlServerDriver } from './mssql-driver.sqlserver';

/** Builds SQL Server connectors. `build` checks the descriptor and does no I/O. */
export class SqlServerConnectorFactory implements ConnectorFactory {
  readonly #options: ConnectorOptions;
  readonly #timeouts: ConnectorTimeouts;
  readonly #driver: SqlServerDriver | undefined;

  /** `driver` replaces mssql in unit tests; hosts leave it out. */
  constructor(options: ConnectorOptions, driver?: SqlServerDriver) {
    this.#options = options;
    this.#timeouts = resolveTimeouts(options);
    this.#driver = driver;
  }

  build(descriptor: ConnectionDescriptor): Connector {
    const sslMode = checkSqlDescriptor(descriptor, 'SQL_SERVER', SQLSERVER_SSL_MODES);
    return new SqlServerConnector({
      descriptor,
      attributes: connectorAttributes(descriptor),
      options: this.#options,
      timeouts: this.#timeouts,
      sslMode,
      ...(this.#driver ? { driver: this.#driver } : {}),
    });
  }
}
