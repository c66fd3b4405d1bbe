import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AppError } from '../../errors/app-error';
import { Errors } from '../../errors/catalogue';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import { SCHEMA_CHECK, type SchemaCheck, type SchemaProblem, sortSchemaProblems } from '../../ports/schema-check.port';
import { ConnectionDirectory } from '../connection-directory';
import { dialFailure } from '../dial-errors';
import { ValidateSchemaQuery, type ValidateSchemaResult } from './validate-schema.query';

type Problem = SchemaProblem;

export const SCHEMA_VALID_MESSAGE = 'Schema validated successfully. All datasources, tables, and fields exist.';

/**
 * validate-schema: the schema check (the engine, through the SchemaCheck port that job creation
 * uses too) checks each datasource against its (cached) schema. Each datasource is validated on its
 * own so one that is down is reported as DATA_SOURCE_DOWN without failing the others; a denied
 * host or SSL mode fails the whole request.
 */
@QueryHandler(ValidateSchemaQuery)
export class ValidateSchemaHandler implements IQueryHandler<ValidateSchemaQuery> {
  constructor(
    @Inject(SCHEMA_CHECK) private readonly schema: SchemaCheck,
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
          return { problems: await this.schema.check(tenant, connection, tables) };
        } catch (error) {
          const refusal = dialFailure(error, connection.descriptor.sslMode ?? '', () => Errors.internal());
          if (refusal.code === 'FET-0414' || refusal.code === 'FET-0413') return { refusal };
          return { problems: [{ type: 'DATA_SOURCE_DOWN', dataSourceId: ds }] as Problem[] };
        }
      }),
    );
    const refusal = outcomes.find((o) => 'refusal' in o)?.refusal;
    if (refusal) throw refusal;
    const problems = sortSchemaProblems(outcomes.flatMap((o) => o.problems ?? []));
    if (problems.length > 0) throw Errors.schemaValidationFailed(problems);
    return { status: 'success', message: SCHEMA_VALID_MESSAGE };
  }
}
