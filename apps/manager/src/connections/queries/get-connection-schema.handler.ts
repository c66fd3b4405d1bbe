import { Inject, Logger } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { compareUtf8, type Engine, type TableSchema } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import { ENGINE } from '../../ports/engine.port';
import { ConnectionDirectory } from '../connection-directory';
import { connectFailure, dialFailure, dialFailureLog, isConnectFailure, secretTexts } from '../dial-errors';
import type { ConnectionSchemaResponse, SchemaTableResponse } from '../dto/connection-schema.response';
import { GetConnectionSchemaQuery } from './get-connection-schema.query';

/** Live discovery, always: GET /schema never reads or writes the schema cache. */
@QueryHandler(GetConnectionSchemaQuery)
export class GetConnectionSchemaHandler implements IQueryHandler<GetConnectionSchemaQuery> {
  readonly #logger = new Logger(GetConnectionSchemaHandler.name);

  constructor(
    @Inject(ENGINE) private readonly engine: Engine,
    private readonly directory: ConnectionDirectory,
  ) {}

  async execute({ tenant, id }: GetConnectionSchemaQuery): Promise<ConnectionSchemaResponse> {
    let found;
    try {
      found = await this.directory.byId(tenant, id);
    } catch (error) {
      throw dialFailure(error, '', () => Errors.internal());
    }
    if (!found) throw Errors.entityNotFound('connection');
    const c = 'internal' in found ? found.internal : found.stored;
    const sslMode = 'internal' in found ? found.internal.sslMode : (found.stored.ssl?.mode ?? '');
    let snapshot;
    try {
      snapshot = await this.engine.discoverSchemaFresh(tenant, c.configName);
    } catch (error) {
      const answer = dialFailure(error, sslMode, (e) => (isConnectFailure(e) ? connectFailure(e) : Errors.schemaRetrievalError()));
      const secrets = secretTexts(() => ('internal' in found ? found.internal.descriptor : this.directory.storedDescriptor(found.stored)));
      // The driver's own account of the failure, masked, for the operator only (never in the answer).
      this.#logger.debug({ configName: c.configName, ...dialFailureLog(error, secrets) }, 'schema discovery failed');
      throw answer;
    }
    const tables = [...snapshot.tables].sort((a, b) => compareUtf8(a.name, b.name)).map(tableResponse);
    return { id, configName: c.configName, databaseName: c.databaseName, type: c.type, tables };
  }
}

/** A table's fields sorted, and their types in the same order when the connector reported every one. */
function tableResponse(table: TableSchema): SchemaTableResponse {
  const fields = [...table.fields].sort(compareUtf8);
  const byName = new Map((table.columns ?? []).map((c) => [c.name, c]));
  if (!fields.every((f) => byName.has(f))) return { name: table.name, fields };
  return { name: table.name, fields, columns: fields.map((f) => ({ name: f, kind: byName.get(f)!.kind, type: byName.get(f)!.nativeType })) };
}
