import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';

/**
 * What a host puts in `descriptor.hostAttributes` for the connectors: non-secret options only. The
 * engine treats the bag as opaque; this is the connectors' side of that contract. Decrypted
 * credentials travel in `descriptor.secrets` instead (see `connectorSecrets`).
 */
export interface ConnectorAttributes {
  /** Connection metadata: Oracle `serviceName`; MongoDB `authSource`. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Schemas to discover. Empty or absent: the type's default. */
  readonly schemaScope?: readonly string[];
  /** Operator-configured internal datasource: exempt from host safety; Mongo authSource defaults to the database. */
  readonly internal?: boolean;
}

export function connectorAttributes(descriptor: ConnectionDescriptor): ConnectorAttributes {
  const attributes = descriptor.hostAttributes;
  if (!attributes || typeof attributes !== 'object') return {};
  const { metadata, schemaScope, internal } = attributes as ConnectorAttributes;
  return {
    ...(metadata !== undefined ? { metadata } : {}),
    ...(schemaScope !== undefined ? { schemaScope } : {}),
    ...(internal !== undefined ? { internal } : {}),
  };
}

/**
 * The decrypted credentials the host attached to the descriptor (`withConnectionSecrets`), or none.
 * They MUST NOT reach logs, error texts or anything serialised: connectors hold them in `#private`
 * fields only.
 */
export function connectorSecrets(descriptor: ConnectionDescriptor): ConnectionSecrets {
  const secrets = descriptor.secrets;
  return secrets && typeof secrets === 'object' ? secrets : {};
}
