import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { normaliseTableKey, parseDatasourceType, splitTableKey } from '@fetcher/connectors';
import { compareUtf8, type Engine, type SchemaValidationReport, type TenantContext } from '@fetcher/engine';
import { AppError } from '../../errors/app-error';
import { Errors } from '../../errors/catalogue';
import { scopeFor, withSchemaScopes } from '../../engine/schema-scope';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import { ENGINE } from '../../ports/engine.port';
import { ConnectionDirectory } from '../connection-directory';
import { dialFailure } from '../dial-errors';
import { ValidateSchemaQuery, type ValidateSchemaResult } from './validate-schema.query';

type Problem = Readonly<Record<string, string>>;

export const SCHEMA_VALID_MESSAGE = 'Schema validated successfully. All datasources, tables, and fields exist.';

/**
 * validate-schema: the engine checks each datasource against its (cached) schema; this handler
 * turns request names into connector table keys (default schema dropped, Oracle upper-cased) and
 * the engine's failures back into the names the client sent. Each datasource is validated on its
 * own so one that is down is reported as DATA_SOURCE_DOWN without failing the others; a denied
 * host or SSL mode fails the whole request.
 */
@QueryHandler(ValidateSchemaQuery)
export class ValidateSchemaHandler implements IQueryHandler<ValidateSchemaQuery> {
  constructor(
    @Inject(ENGINE) private readonly engine: Engine,
    private readonly directory: ConnectionDirectory,
  ) {}

  async execute({ tenant, mappedFields }: ValidateSchemaQuery): Promise<ValidateSchemaResult> {
    let resolved: ReadonlyMap<string, ResolvedConnection>;
    try {
      resolved = await this.directory.resolve(tenant, [...mappedFields.keys()]);
    } catch (error) {
      throw error instanceof AppError && error.code === 'FET-0003' ? error : Errors.internal();
    }
    if (resolved.size === 0) throw Errors.noConnectionsForValidation();

    const outcomes = await Promise.all(
      [...mappedFields].map(async ([ds, tables]) => {
        const connection = resolved.get(ds);
        if (!connection) return { problems: [{ type: 'DATA_SOURCE_NOT_FOUND', dataSourceId: ds }] as Problem[] };
        try {
          return { problems: await this.validateOne(tenant, ds, connection, tables) };
        } catch (error) {
          const refusal = dialFailure(error, connection.descriptor.sslMode ?? '', () => Errors.internal());
          if (refusal.code === 'FET-0414' || refusal.code === 'FET-0413') return { refusal };
          return { problems: [{ type: 'DATA_SOURCE_DOWN', dataSourceId: ds }] as Problem[] };
        }
      }),
    );
    const refusal = outcomes.find((o) => 'refusal' in o)?.refusal;
    if (refusal) throw refusal;
    const problems = outcomes.flatMap((o) => o.problems ?? []).sort(byIdTableField);
    if (problems.length > 0) throw Errors.schemaValidationFailed(problems);
    return { status: 'success', message: SCHEMA_VALID_MESSAGE };
  }

  private async validateOne(
    tenant: TenantContext,
    ds: string,
    connection: ResolvedConnection,
    tables: ReadonlyMap<string, readonly string[]>,
  ): Promise<Problem[]> {
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
      this.engine.validateSchema(tenant, {
        datasources: [{ configName: ds, tables: keys.map((k) => ({ name: k, fields: [...fieldsByKey.get(k)!] })) }],
      }),
    );
    const problems: Problem[] = [];
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

function byIdTableField(a: Problem, b: Problem): number {
  for (const key of ['dataSourceId', 'table', 'field']) {
    const order = compareUtf8(a[key] ?? '', b[key] ?? '');
    if (order !== 0) return order;
  }
  return 0;
}
