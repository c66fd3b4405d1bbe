import type { ConnectionDescriptor } from '@fetcher/engine';

/**
 * What a host puts in `descriptor.hostAttributes` for the connectors. The engine treats the bag as
 * opaque; this is the connectors' side of that contract. Secrets here are already decrypted and
 * MUST NOT reach logs, error texts or anything serialised.
 */
export interface ConnectorAttributes {
  /** Decrypted password. */
  readonly password?: string;
  /** Decrypted PEM material for TLS. */
  readonly ssl?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
  /** Connection metadata: Oracle `serviceName`; MongoDB `authSource`, `directConnection`. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Schema scope (worker-engine.md A7.1 step 3). Empty or absent: the type's default. */
  readonly schemaScope?: readonly string[];
  /** Operator-configured internal datasource: exempt from host safety; Mongo authSource defaults to the database. */
  readonly internal?: boolean;
}

export function connectorAttributes(descriptor: ConnectionDescriptor): ConnectorAttributes {
  const attributes = descriptor.hostAttributes;
  return attributes && typeof attributes === 'object' ? (attributes) : {};
}
