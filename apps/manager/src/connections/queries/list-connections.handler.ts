import { Inject, Logger } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CONNECTION_REPOSITORY, type ConnectionListFilter, type ConnectionRepository } from '../../ports/connection-repository.port';
import type { InternalDatasource } from '../../ports/internal-datasources.port';
import { ConnectionDirectory } from '../connection-directory';
import { type ConnectionListResponse, connectionResponse, internalConnectionResponse } from '../dto/connection.response';
import { ListConnectionsQuery } from './list-connections.query';

/**
 * Lists live connections. Quirk kept: page 1 (only) starts with the internal datasources, which
 * count in its `total` and may push it past `limit`; they honour the type, host and database
 * filters and ignore product, metadata and dates. If they cannot be resolved, the stored ones are
 * still returned.
 */
@QueryHandler(ListConnectionsQuery)
export class ListConnectionsHandler implements IQueryHandler<ListConnectionsQuery> {
  private readonly logger = new Logger(ListConnectionsHandler.name);

  constructor(
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    private readonly directory: ConnectionDirectory,
  ) {}

  async execute({ tenant, params, productName, unassignedOnly }: ListConnectionsQuery): Promise<ConnectionListResponse> {
    const { filter } = params;
    const storedFilter: ConnectionListFilter = unassignedOnly
      ? {
          unassignedOnly: true,
          ...(filter.createdFrom ? { createdFrom: filter.createdFrom } : {}),
          ...(filter.createdBefore ? { createdBefore: filter.createdBefore } : {}),
        }
      : { ...filter, ...(productName !== undefined ? { productName } : {}) };
    const stored = await this.repository.list(tenant, { filter: storedFilter, page: params.page, limit: params.limit, sortOrder: params.sortOrder });
    const internals = unassignedOnly || params.page > 1 ? [] : await this.internals(tenant, filter);
    return {
      items: [...internals.map(internalConnectionResponse), ...stored.items.map((c) => connectionResponse(c))],
      page: params.page,
      limit: params.limit,
      total: stored.total + internals.length,
    };
  }

  private async internals(tenant: ListConnectionsQuery['tenant'], filter: ConnectionListFilter): Promise<readonly InternalDatasource[]> {
    try {
      return (await this.directory.listInternal(tenant)).filter(
        (i) =>
          (filter.type === undefined || i.type.toUpperCase() === filter.type) &&
          (filter.host === undefined || i.host === filter.host) &&
          (filter.databaseName === undefined || i.databaseName === filter.databaseName),
      );
    } catch {
      this.logger.warn('internal datasources could not be resolved; listing stored connections only');
      return [];
    }
  }
}
