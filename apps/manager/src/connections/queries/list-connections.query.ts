import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { ConnectionListResponse } from '../dto/connection.response';
import type { ListParams } from '../dto/list-connections.params';

/** `unassignedOnly`: the unassigned route, which applies only paging, order and dates. */
export class ListConnectionsQuery extends Query<ConnectionListResponse> {
  constructor(
    readonly tenant: TenantContext,
    readonly params: ListParams,
    readonly productName: string | undefined,
    readonly unassignedOnly = false,
  ) {
    super();
  }
}
