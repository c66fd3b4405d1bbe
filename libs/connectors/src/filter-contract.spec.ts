/**
 * The contract between the planner and the connectors on filter values: a value the engine's
 * planner accepts for a column kind never fails a connector's filter building with `validation`
 * (a plan that passed planning must not fail execution over a value it already checked).
 */
import { ConnectionInput, JsonNumber, createEngine, createTenantContext, type ColumnKind, type FilterCondition } from '@fetcher/engine';
import { MemoryConnectionStore, MemoryConnectorFactory, MemoryConnectorRegistry, TemplateConnector } from '@fetcher/engine/memory';
import { buildFilterDocument } from './mongodb/filter-document.mongodb';
import { MYSQL_DIALECT, ORACLE_DIALECT, POSTGRES_DIALECT, SQLSERVER_DIALECT } from './sql/dialect';
import { compileWhere } from './sql/where';

const KINDS: readonly ColumnKind[] = ['integer', 'decimal', 'float', 'boolean', 'uuid', 'date', 'datetime', 'time', 'string', 'json', 'binary', 'objectId', 'other'];

/** Values at the edges: exact-number literals, offsets that leave the year range, year 0, huge exponents. */
const VALUES: readonly unknown[] = [
  new JsonNumber('5'),
  new JsonNumber('-12345678901234567890'),
  new JsonNumber('1.5'),
  new JsonNumber('1e400'),
  '1e400',
  '-1e400',
  '0000-01-01',
  '0000-12-31T23:00:00Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:30:00-01:00',
  '9999-12-31',
  '0001-01-01',
  '2024-02-29T12:00:00.1234567+05:30',
  '2024-01-01T00:00:00',
  '507f1f77bcf86cd799439011',
  '0F8FAD5B-D9CB-469F-A165-70867728950E',
  'AQIDBA==',
  '+5',
  '.5',
  '1.',
  12,
  1.5,
  9007199254740993n,
  true,
  'true',
  'text',
];

async function plannedFilter(kind: ColumnKind, value: unknown): Promise<FilterCondition | undefined> {
  const template = new TemplateConnector({
    schema: { configName: 'crm', tables: [{ name: 't', fields: ['f'], columns: [{ name: 'f', kind, nativeType: kind }] }] },
  });
  const registry = new MemoryConnectorRegistry().register('memory', new MemoryConnectorFactory(template));
  const engine = createEngine({ connectorRegistry: registry, connectionStore: new MemoryConnectionStore() });
  const tenant = createTenantContext('acme');
  await engine.createConnection(tenant, new ConnectionInput({ configName: 'crm', type: 'memory', host: 'h', port: 0, databaseName: 'crm', userName: 'u' }));
  try {
    const plan = await engine.planExtraction(tenant, { mappedFields: { crm: { t: ['f'] } }, filters: { crm: { t: { f: { gte: [value] } } } } });
    return plan.steps[0].filters?.t?.f;
  } catch {
    return undefined; // refused by the planner: nothing for a connector to do
  }
}

describe('filter values: planner and connectors agree', () => {
  const cases = KINDS.flatMap((kind) => VALUES.map((value) => [kind, value] as const));

  it.each(cases)('a %s value the planner accepts (%p) is bound by every connector', async (kind, value) => {
    const condition = await plannedFilter(kind, value);
    if (condition === undefined) return;
    const columns = new Map([['f', { name: 'f', kind, nativeType: kind }]]);
    for (const dialect of [POSTGRES_DIALECT, MYSQL_DIALECT, SQLSERVER_DIALECT, ORACLE_DIALECT]) {
      expect(() => compileWhere(dialect, { f: condition }, columns, 'crm.t')).not.toThrow();
    }
    expect(() => buildFilterDocument({ f: condition }, new Map([['f', kind]]), 'crm.t')).not.toThrow();
  });
});
