import { normaliseTableKey, parseDatasourceType, splitTableKey } from '@fetcher/connectors';
import { incrementalInEngineKeys } from '@fetcher/contracts';
import { incrementalProblem, type Engine, type SchemaSnapshot, type SchemaValidationReport, type TenantContext } from '@fetcher/engine';
import { scopeFor, withSchemaScopes } from '../../engine/schema-scope';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import { IncrementalRefused, type SchemaCheck, type SchemaProblem } from '../../ports/schema-check.port';

/**
 * The engine's schema validation for one datasource: request names become connector table keys
 * (default schema dropped, Oracle upper-cased), and the engine's failures go back to the names the
 * client sent. The schema scope of the request travels to the connection store and the schema
 * cache through `withSchemaScopes`.
 */
export class EngineSchemaCheck implements SchemaCheck {
  constructor(private readonly engine: Pick<Engine, 'validateSchema' | 'discoverSchema'>) {}

  async check(
    tenant: TenantContext,
    connection: ResolvedConnection,
    tables: ReadonlyMap<string, readonly string[]>,
    signal?: AbortSignal,
    incremental?: Readonly<Record<string, unknown>>,
    filterFields?: ReadonlyMap<string, readonly string[]>,
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
    // Filters of extracted tables only, as the Worker's planner checks them; named as the filter spelled the table.
    const filterRequestedByKey = new Map<string, string[]>();
    const filtersByKey = new Map<string, Set<string>>();
    for (const [table, fields] of filterFields ?? []) {
      const key = type ? normaliseTableKey(type, table) : table;
      if (!fieldsByKey.has(key) || fields.length === 0) continue;
      filterRequestedByKey.set(key, [...(filterRequestedByKey.get(key) ?? []), table]);
      const set = filtersByKey.get(key) ?? new Set<string>();
      for (const f of fields) set.add(oracle ? f.toUpperCase() : f);
      filtersByKey.set(key, set);
    }
    const keys = [...fieldsByKey.keys()];
    const scope = scopeFor(connection.descriptor.type, type === 'MONGODB' ? [] : keys.map((k) => splitTableKey(k).schema));
    const options = signal ? { signal } : undefined;
    let snapshot: SchemaSnapshot | undefined;
    const report: SchemaValidationReport = await withSchemaScopes(new Map([[ds, scope]]), async () => {
      const validated = await this.engine.validateSchema(
        tenant,
        { datasources: [{ configName: ds, tables: keys.map((k) => ({ name: k, fields: [...fieldsByKey.get(k)!], filterFields: [...(filtersByKey.get(k) ?? [])] })) }] },
        options,
      );
      // The schema validation just cached (same scope), so this read costs no second discovery.
      if (incremental && validated.valid) snapshot = await this.engine.discoverSchema(tenant, ds, options);
      return validated;
    });
    if (snapshot && incremental) this.#checkIncremental(ds, type, fieldsByKey, incremental, snapshot, requestedByKey);
    const problems: SchemaProblem[] = [];
    const missingSelected = new Set(report.failures.filter((f) => f.type === 'field_not_found').map((f) => `${f.table ?? ''}\u0000${f.field ?? ''}`));
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
      } else if (failure.type === 'invalid_filter') {
        // A field both selected and filtered on is reported once, as the selected field.
        if (missingSelected.has(`${failure.table ?? ''}\u0000${failure.field ?? ''}`)) continue;
        for (const table of filterRequestedByKey.get(failure.table ?? '') ?? []) {
          const asSent = filterFields?.get(table)?.find((f) => (oracle ? f.toUpperCase() : f) === failure.field) ?? failure.field ?? '';
          problems.push({ type: 'FIELD_NOT_FOUND', dataSourceId: ds, table, field: asSent, in: 'filters' });
        }
      }
    }
    return problems;
  }

  /** The engine's incremental rules on the discovered tables; a problem names the table as sent. */
  #checkIncremental(
    ds: string,
    type: ReturnType<typeof parseDatasourceType>,
    fieldsByKey: ReadonlyMap<string, Set<string>>,
    incremental: Readonly<Record<string, unknown>>,
    snapshot: SchemaSnapshot,
    requestedByKey: ReadonlyMap<string, readonly string[]>,
  ): void {
    const tableKey = (_: string, table: string): string => (type ? normaliseTableKey(type, table) : table);
    const mapped = { [ds]: Object.fromEntries([...fieldsByKey].map(([key, fields]) => [key, [...fields]])) };
    const tablesByName = new Map(snapshot.tables.map((t) => [t.name, t]));
    const problem = incrementalProblem(mapped, incrementalInEngineKeys({ [ds]: incremental }, tableKey, () => type === 'ORACLE'), (configName) =>
      configName === ds ? (table) => tablesByName.get(table) : undefined,
    );
    if (!problem) return;
    const asSent = problem.table !== undefined ? requestedByKey.get(problem.table)?.[0] : undefined;
    throw new IncrementalRefused(asSent !== undefined ? { ...problem, table: asSent } : problem);
  }
}
