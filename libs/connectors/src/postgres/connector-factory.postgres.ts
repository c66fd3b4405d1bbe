import type { ConnectionDescriptor, Connector, ConnectorFactory } from '@fetcher/engine';
import { connectorAttributes } from '../common/attributes';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import type { ConnectorTimeouts } from '../common/timeouts';
import { checkSqlDescriptor } from '../sql/descriptor-checks';
import { POSTGRES_SSL_MODES } from './connection-options.postgres';
import { PostgresConnector } from './connector.postgres';

/** Builds PostgreSQL connectors. `build` checks the descriptor (type, host, port, SSL mode) and does no I/O. */
export class PostgresConnectorFactory implements ConnectorFactory {
  readonly #options: ConnectorOptions;
  readonly #timeouts: ConnectorTimeouts;

  constructor(options: ConnectorOptions) {
    this.#options = options;
    this.#timeouts = resolveTimeouts(options);
  }

  build(descriptor: ConnectionDescriptor): Connector {
    const sslMode = checkSqlDescriptor(descriptor, 'POSTGRESQL', POSTGRES_SSL_MODES);
    return new PostgresConnector({
      descriptor,
      attributes: connectorAttributes(descriptor),
      options: this.#options,
      timeouts: this.#timeouts,
      sslMode,
    });
  }
}
