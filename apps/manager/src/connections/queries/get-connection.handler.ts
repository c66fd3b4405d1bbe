import { Inject, Logger } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AppError } from '../../errors/app-error';
import { Errors } from '../../errors/catalogue';
import { CONNECTION_REPOSITORY, type ConnectionRepository } from '../../ports/connection-repository.port';
import { ConnectionDirectory } from '../connection-directory';
import { type ConnectionResponse, connectionResponse, internalConnectionResponse } from '../dto/connection.response';
import { GetConnectionQuery } from './get-connection.query';

/** One connection by id: an internal datasource's UUIDv5 first, then the live stored record. No product check. */
@QueryHandler(GetConnectionQuery)
export class GetConnectionHandler implements IQueryHandler<GetConnectionQuery> {
  private readonly logger = new Logger(GetConnectionHandler.name);

  constructor(
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    private readonly directory: ConnectionDirectory,
  ) {}

  async execute({ tenant, id }: GetConnectionQuery): Promise<ConnectionResponse> {
    let internal;
    try {
      internal = await this.directory.internalById(tenant, id);
    } catch (error) {
      if (error instanceof AppError) throw error;
      this.logger.error('internal datasources could not be resolved');
      throw Errors.internal();
    }
    if (internal) return internalConnectionResponse(internal);
    const stored = await this.repository.findLiveById(tenant, id);
    if (!stored) throw Errors.entityNotFound('connection');
    return connectionResponse(stored);
  }
}
