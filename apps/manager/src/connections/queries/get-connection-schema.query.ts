import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { ConnectionSchemaResponse } from '../dto/connection-schema.response';

export class GetConnectionSchemaQuery extends Query<ConnectionSchemaResponse> {
  constructor(
    readonly tenant: TenantContext,
    readonly id: string,
  ) {
    super();
  }
}
