import { EngineError, type ConnectionDescriptor, type Connector, type ConnectorFactory } from '@fetcher/engine';
import { resolveTimeouts, type ConnectorOptions } from '../common/options';
import { checkSqlDescriptor } from '../common/descriptor-checks';
import { MONGO_SSL_MODES } from './client-options.mongodb';
import { lazyModule } from '../common/lazy-module';

// The connector module pulls in the mongodb driver: loaded when the first MongoDB connector is built.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose, typed through typeof import
const connectorModule = lazyModule(() => require('./connector.mongodb') as typeof import('./connector.mongodb'));

/**
 * Builds MongoDB connectors. `build` checks the descriptor and does no I/O: the client is created by the connector's testConnection.
 */
export class MongoConnectorFactory implements ConnectorFactory {
  constructor(private readonly options: ConnectorOptions) {
    resolveTimeouts(options); // a bad timeout override is a wiring mistake: fail at construction
  }

  build(descriptor: ConnectionDescriptor): Connector {
    // The same type, host, port and SSL-mode checks (and texts) as the SQL types.
    checkSqlDescriptor(descriptor, 'MONGODB', MONGO_SSL_MODES);
    // Collections live in a database: without one there is nothing to list or read.
    if (typeof descriptor.databaseName !== 'string' || descriptor.databaseName === '') {
      throw new EngineError('validation', 'datasource database name is required');
    }
    return new (connectorModule().MongoConnector)(descriptor, this.options);
  }
}
