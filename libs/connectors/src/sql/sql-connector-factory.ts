import type { ConnectionDescriptor, Connector, ConnectorFactory } from '@fetcher/engine';
import { connectorAttributes, connectorSecrets } from '../common/attributes';
import type { DatasourceType } from '../common/naming';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import type { ConnectorTimeouts } from '../common/timeouts';
import { checkSqlDescriptor } from '../common/descriptor-checks';
import type { SqlConnectorConfigWithDriver } from './sql-connector-config';

/**
 * What the SQL factories share. The timeouts are resolved once, when the factory is constructed:
 * a bad override is a wiring mistake and fails there, not on first use. `build` checks the
 * descriptor (type, host, port, SSL mode) and does no I/O; the connector dials in testConnection.
 */
export abstract class SqlConnectorFactory<Driver = never> implements ConnectorFactory {
  readonly #options: ConnectorOptions;
  readonly #timeouts: ConnectorTimeouts;
  readonly #type: DatasourceType;
  readonly #sslModes: readonly string[];
  readonly #driver: Driver | undefined;

  protected constructor(options: ConnectorOptions, type: DatasourceType, sslModes: readonly string[], driver?: Driver) {
    this.#options = options;
    this.#timeouts = resolveTimeouts(options);
    this.#type = type;
    this.#sslModes = sslModes;
    this.#driver = driver;
  }

  build(descriptor: ConnectionDescriptor): Connector {
    const sslMode = checkSqlDescriptor(descriptor, this.#type, this.#sslModes);
    return this.createConnector({
      descriptor,
      attributes: connectorAttributes(descriptor),
      secrets: connectorSecrets(descriptor),
      options: this.#options,
      timeouts: this.#timeouts,
      sslMode,
      ...(this.#driver ? { driver: this.#driver } : {}),
    });
  }

  /** The type's connector for a checked descriptor. */
  protected abstract createConnector(config: SqlConnectorConfigWithDriver<Driver>): Connector;
}
