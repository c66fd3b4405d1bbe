import type { ConnectionDescriptor } from '@fetcher/engine';
import { connectorAttributes, connectorSecrets } from '../../common/attributes';
import { resolveTimeouts, type ConnectorOptions } from '../../common/options';
import { MysqlConnector } from '../connector.mysql';

/** A connector built past the factory, so that a suite can choose the read path (server-built JSON or rows only). */
export function mysqlConnectorWithReadPath(descriptor: ConnectionDescriptor, options: ConnectorOptions, serverJsonPath: boolean): MysqlConnector {
  return new MysqlConnector({
    descriptor,
    attributes: connectorAttributes(descriptor),
    secrets: connectorSecrets(descriptor),
    options,
    timeouts: resolveTimeouts(options),
    sslMode: descriptor.sslMode ?? '',
    serverJsonPath,
  });
}
