import type { ConnectionDescriptor, Connector, ConnectorFactory } from '@fetcher/engine';
import { connectorAttributes } from '../common/attributes';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import type { ConnectorTimeouts } from '../common/timeouts';
import { checkSqlDescriptor } from '../sql/descriptor-checks';
import { MYSQL_SSL_MODES } from './connection-options.mysql';
import { MysqlConnector } from './connector.mysql';

/** Builds MySQL/MariaDB connectors. `build` checks the descriptor and does no I/O. */
export class MysqlConnectorFactory implements ConnectorFactory {
  readonly #options: ConnectorOptions;
  readonly #timeouts: ConnectorTimeouts;

  constructor(options: ConnectorOptions) {
    this.#options = options;
    this.#timeouts = resolveTimeouts(options);
  }

  build(descriptor: ConnectionDescriptor): Connector {
    const sslMode = checkSqlDescriptor(descriptor, 'MYSQL', MYSQL_SSL_MODES);
    return new MysqlConnector({
      descriptor,
      attributes: connectorAttributes(descriptor),
      options: this.#options,
      timeouts: this.#timeouts,
      sslMode,
    });
  }
}
