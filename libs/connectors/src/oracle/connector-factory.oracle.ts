import type { ConnectionDescriptor, Connector, ConnectorFactory } from '@fetcher/engine';
import { connectorAttributes } from '../common/attributes';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import type { ConnectorTimeouts } from '../common/timeouts';
import { checkSqlDescriptor } from '../sql/descriptor-checks';
import { ORACLE_SSL_MODES } from './connection-options.oracle';
import { OracleConnector } from './connector.oracle';
import type { OracleDriver } from './oracledb-driver.oracle';

/**
 * Builds Oracle connectors. `build` checks the descriptor and does no I/O; a missing
 * `metadata.serviceName` fails the dial (a connect error), as the Manager's FET-1040 expects.
 */
export class OracleConnectorFactory implements ConnectorFactory {
  readonly #options: ConnectorOptions;
  readonly #timeouts: ConnectorTimeouts;
  readonly #driver: OracleDriver | undefined;

  /** `driver` replaces oracledb in unit tests; hosts leave it out. */
  constructor(options: ConnectorOptions, driver?: OracleDriver) {
    this.#options = options;
    this.#timeouts = resolveTimeouts(options);
    this.#driver = driver;
  }

  build(descriptor: ConnectionDescriptor): Connector {
    const sslMode = checkSqlDescriptor(descriptor, 'ORACLE', ORACLE_SSL_MODES);
    return new OracleConnector({
      descriptor,
      attributes: connectorAttributes(descriptor),
      options: this.#options,
      timeouts: this.#timeouts,
      sslMode,
      ...(this.#driver ? { driver: this.#driver } : {}),
    });
  }
}
