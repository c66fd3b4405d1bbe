/**
 * The drivers load lazily: importing the package and building the registry loads none of them,
 * and building the first connector of a type loads that type's driver only. A process that dials
 * PostgreSQL alone does not carry mysql2, mssql/tedious, oracledb and mongodb (tens of MiB).
 */
import type { ConnectionDescriptor, ConnectorRegistry } from '@fetcher/engine';

const DRIVERS = ['pg', 'pg-cursor', 'mysql2', 'mssql', 'oracledb', 'mongodb'] as const;

function descriptor(type: string, port: number): ConnectionDescriptor {
  return { configName: 'x', type, host: 'db.example.com', port, databaseName: 'd', userName: 'u' };
}

describe('datasource driver loading', () => {
  let loaded: string[];

  beforeEach(() => {
    loaded = [];
    for (const driver of DRIVERS) {
      jest.doMock(driver, () => {
        loaded.push(driver);
        return jest.requireActual(driver);
      });
    }
  });

  afterEach(() => {
    for (const driver of DRIVERS) jest.dontMock(driver);
  });

  function freshRegistry(): ConnectorRegistry {
    let registry: ConnectorRegistry | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module registry is the point of this test
      const connectors = require('./index') as typeof import('./index');
      registry = connectors.createConnectorRegistry({ hostSafety: connectors.DEFAULT_HOST_SAFETY_POLICY });
    });
    return registry!;
  }

  it('loads no driver to import the package and build the registry', () => {
    freshRegistry();
    expect(loaded).toEqual([]);
  });

  it.each([
    ['postgresql', 5432, ['pg', 'pg-cursor']],
    ['mysql', 3306, ['mysql2']],
    ['sql_server', 1433, ['mssql']],
    ['oracle', 1521, ['oracledb']],
    ['mongodb', 27017, ['mongodb']],
  ])('loads only the %s driver when the first such connector is built', (type, port, expected) => {
    const registry = freshRegistry();
    registry.connector(type)!.build(descriptor(type, port));
    registry.connector(type)!.build(descriptor(type, port));
    expect([...new Set(loaded)].sort()).toEqual([...expected].sort());
  });
});
