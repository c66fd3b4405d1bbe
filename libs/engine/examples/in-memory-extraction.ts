/**
 * The engine end to end, as a consuming service uses it: imported by package name, wired with the
 * in-memory harness, one connection, one plan, one extraction in direct mode. Run it with
 * `npm run example` (or `npm start`) from the repository root.
 */
import { ConnectionInput, createEngine, createTenantContext, JsonNumber } from '@fetcher/engine';
import {
  MemoryConnectionStore,
  MemoryConnectorFactory,
  MemoryConnectorRegistry,
  TemplateConnector,
} from '@fetcher/engine/memory';

async function main(): Promise<void> {
  // A "datasource" with two tables: a bigint beyond 2^53, an exact decimal (a string with the
  // database's text, as connectors deliver NUMERIC), a JSON column whose number literal must not
  // pass through a double, and a table with no rows (it still appears in the result, as []).
  const template = new TemplateConnector({
    rows: {
      customers: [
        {
          id: 9007199254740993n,
          name: 'Ada Lovelace',
          balance: '1024.50',
          profile: { tier: 'gold', tags: ['math', 'engines'], score: new JsonNumber('0.1000000000000000055511151231257827') },
        },
        { id: 9007199254740994n, name: 'Grace Hopper', balance: '-3.10', profile: { tier: 'silver', tags: [], score: new JsonNumber('7') } },
      ],
      refunds: [],
    },
  });
  const registry = new MemoryConnectorRegistry().register('memory', new MemoryConnectorFactory(template));
  const engine = createEngine({ connectorRegistry: registry, connectionStore: new MemoryConnectionStore() });

  const tenant = createTenantContext('example-tenant', 'example-request');
  await engine.createConnection(
    tenant,
    new ConnectionInput({ configName: 'crm', type: 'memory', host: 'localhost', port: 0, databaseName: 'crm', userName: 'reader', password: 'never-printed' }),
  );

  const plan = await engine.planExtraction(tenant, { mappedFields: { crm: { customers: ['*'], refunds: ['*'] } } });
  plan.mode = 'direct';
  const result = await engine.executeExtraction(plan);
  const direct = result.direct!;

  process.stdout.write(
    [
      `document   ${new TextDecoder().decode(direct.data)}`,
      `sha256     ${direct.integrity.digest}`,
      `bytes      ${direct.plaintextSize}`,
      `rows       ${direct.rowCount} (${JSON.stringify(result.rowCounts)})`,
      `state      ${result.state.status}`,
    ].join('\n') + '\n',
  );
}

main().catch((error: unknown) => {
  // EngineError renders as "engine: [category] fixed text"; nothing else is printed.
  process.stderr.write(`example failed: ${String(error)}\n`);
  process.exitCode = 1;
});
