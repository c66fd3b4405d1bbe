/**
 * Registry lookup, connector build and close, with their fixed failures.
 * A factory or connector that throws something other than the documented outcome is mapped to
 * the same fixed text: its message may quote a DSN.
 */
import { EngineError, ErrorText, noConnectorText } from '../errors';
import type { ConnectionDescriptor } from '../models';
import type { Connector, ConnectorFactory, ConnectorRegistry } from '../ports';

const CONNECTOR_METHODS = ['testConnection', 'discoverSchema', 'queryStream', 'close'] as const;

/** not_found "no connector registered for datasource type <type>". */
export function resolveFactory(registry: ConnectorRegistry, type: string): ConnectorFactory {
  let factory: unknown;
  try {
    factory = registry.connector(type);
  } catch (error) {
    throw new EngineError('unavailable', ErrorText.buildFailed, error);
  }
  if (typeof factory !== 'object' || factory === null || typeof (factory as ConnectorFactory).build !== 'function') {
    throw new EngineError('not_found', noConnectorText(type));
  }
  return factory as ConnectorFactory;
}

/** unavailable "failed to build connector for connection": a throw, nothing, or not a connector. */
export function buildConnector(factory: ConnectorFactory, descriptor: ConnectionDescriptor): Connector {
  let connector: unknown;
  try {
    connector = factory.build(descriptor);
  } catch (error) {
    throw new EngineError('unavailable', ErrorText.buildFailed, error);
  }
  if (typeof connector !== 'object' || connector === null) throw new EngineError('unavailable', ErrorText.buildFailed);
  for (const method of CONNECTOR_METHODS) {
    if (typeof (connector as Record<string, unknown>)[method] !== 'function') {
      throw new EngineError('unavailable', ErrorText.buildFailed);
    }
  }
  return connector as Connector;
}

/** Close errors are dropped: the work already has its outcome, and close is best-effort. */
export async function closeQuietly(closable: { close(): Promise<void> } | undefined): Promise<void> {
  if (!closable) return;
  try {
    await closable.close();
  } catch {
    // Nothing useful to do; the connector owns its resources.
  }
}
