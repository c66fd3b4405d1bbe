/** ConnectorRegistry in memory: exact type names, a later registration wins. */
import { EngineError, noConnectorText } from '../errors';
import type { ConnectorFactory, ConnectorRegistry } from '../ports';

export class MemoryConnectorRegistry implements ConnectorRegistry {
  readonly #factories = new Map<string, ConnectorFactory>();

  register(type: string, factory: ConnectorFactory): this {
    this.#factories.set(type, factory);
    return this;
  }

  connector(type: string): ConnectorFactory | undefined {
    return this.#factories.get(type);
  }

  /** not_found "no connector registered for datasource type <type>". */
  lookupOrError(type: string): ConnectorFactory {
    const factory = this.#factories.get(type);
    if (!factory) throw new EngineError('not_found', noConnectorText(type));
    return factory;
  }
}
