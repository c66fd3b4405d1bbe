import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { ConnectionResponse } from '../dto/connection.response';

export class GetConnectionQuery extends Query<ConnectionResponse> {
  constructor(
    readonly tenant: TenantContext,
    readonly id: string,
  ) {
    super();
  }
}
