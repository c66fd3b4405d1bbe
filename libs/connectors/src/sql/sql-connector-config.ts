import type { ConnectionDescriptor, ConnectionSecrets } from '@fetcher/engine';
import type { ConnectorAttributes } from '../common/attributes';
import type { ConnectorOptions } from '../common/options';
import type { ConnectorTimeouts } from '../common/timeouts';

/** What a SQL factory hands its connector: the checked descriptor and everything resolved from it. */
export interface SqlConnectorConfig {
  readonly descriptor: ConnectionDescriptor;
  readonly attributes: ConnectorAttributes;
  /** Decrypted credentials: held only in the connector's `#private` config, never logged. */
  readonly secrets: ConnectionSecrets;
  readonly options: ConnectorOptions;
  readonly timeouts: ConnectorTimeouts;
  /** The descriptor's SSL mode, checked against the type's allowlist; '' for the driver default. */
  readonly sslMode: string;
}

/** A connector's config with the driver stand-in a unit test gave its factory (hosts give none). */
export type SqlConnectorConfigWithDriver<Driver> = SqlConnectorConfig & { readonly driver?: Driver };
