import type { Connector } from '@fetcher/engine';
import type { ConnectorOptions } from '../common/options';
import type { SqlConnectorConfig } from '../sql/sql-connector-config';
import { lazyModule } from '../common/lazy-module';
import { SqlConnectorFactory } from '../sql/sql-connector-factory';
import { MYSQL_SSL_MODES } from './connection-options.mysql';

// The connector module pulls in its driver: it is loaded when the first connector of this type is
// built, so a process that never dials this type never loads the driver.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose, typed through typeof import
const connectorModule = lazyModule(() => require('./connector.mysql') as typeof import('./connector.mysql'));

export interface MysqlReadPath {
  /** The server-built JSON path on MariaDB (default on). */
  readonly serverJsonPath?: boolean;
}

/** Builds MySQL/MariaDB connectors. `build` checks the descriptor and does no I/O. */
export class MysqlConnectorFactory extends SqlConnectorFactory {
  readonly #readPath: MysqlReadPath;

  /** `readPath.serverJsonPath: false` keeps every table on the row path (benchmarks compare the two). */
  constructor(options: ConnectorOptions, readPath: MysqlReadPath = {}) {
    super(options, 'MYSQL', MYSQL_SSL_MODES);
    this.#readPath = readPath;
  }

  protected override createConnector(config: SqlConnectorConfig): Connector {
    return new (connectorModule().MysqlConnector)({ ...config, ...this.#readPath });
  }
}
