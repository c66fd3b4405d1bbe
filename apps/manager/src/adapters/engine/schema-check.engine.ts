import { normaliseTableKey, parseDatasourceType, splitTableKey } from '@fetcher/connectors';
import type { Engine, SchemaValidationReport, TenantContext } from '@fetcher/engine';
import { scopeFor, withSchemaScopes } from '../../engine/schema-scope';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import type { SchemaCheck, SchemaProblem } from '../../ports/schema-check.port';

/**
 * The engine's schema validation for one datasource: request names become connector table keys
 * (default schema dropped, Oracle upper-cased), and the engine's failures go back to the names the
 * client sent. The schema scope of the request travels to the connection store and the schema
 * cache through `withSchemaScopes`.
 */
export class EngineSchemaCheck implements SchemaCheck {
  constructor(private readonly engine: Pick<Engine, 'validateSchema'>) {}

  async check(
    tenant: TenantContext,
    connection: ResolvedConnection,
    tables: ReadonlyMap<string, readonly string[]>,
    signal?: AbortSignal,
  ): Promise<SchemaProblem[]> {
    const ds = connection.configName;
    const type = parseDatasourceType(connection.descriptor.type);
    const oracle = type === 'ORACLE';
    const requestedByKey = new Map<string, string[]>();
    const fieldsByKey = new Map<string, Set<string>>();
    for (const [table, fields] of tables) {
      const key = type ? normaliseTableKey(type, table) : table;
      requestedByKey.set(key, [...(requestedByKey.get(key) ?? []), table]);
      const set = fieldsByKey.get(key) ?? new Set<string>();
      for (const f of fields) set.add(oracle && f !== '*' ? f.toUpperCase() : f);
      fieldsByKey.set(key, set);
    }
    const keys = [...fieldsByKey.keys()];
    const scope = scopeFor(connection.descriptor.type, type === 'MONGODB' ? [] : keys.map((k) => splitTableKey(k).schema));
    const report: SchemaValidationReport = await withSchemaScopes(new Map([[ds, scope]]), () =>
      this.engine.validateSchema(
        tenant,
        { datasources: [{ configName: ds, tables: keys.map((k) => ({ name: k, fields: [...fieldsByKey.get(k)!] })) }] },
        signal ? { signal } : undefined,
      ),
    );
    const problems: SchemaProblem[] = [];
    for (const failure of report.failures) {
      const requested = requestedByKey.get(failure.table ?? '') ?? [];
      if (failure.type === 'datasource_not_found') problems.push({ type: 'DATA_SOURCE_NOT_FOUND', dataSourceId: ds });
      else if (failure.type === 'table_not_found') {
        for (const table of requested) problems.push({ type: 'TABLE_NOT_FOUND', dataSourceId: ds, table });
      } else if (failure.type === 'field_not_found') {
        for (const table of requested) {
          const asSent = tables.get(table)?.find((f) => (oracle ? f.toUpperCase() : f) === failure.field) ?? failure.field ?? '';
          problems.push({ type: 'FIELD_NOT_FOUND', dataSourceId: ds, table, field: asSent });
        }
      }
    }
    return problems;
  }
}
