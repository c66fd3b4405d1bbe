import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { StoredConnection } from '../../ports/connection-repository.port';

export class AssignConnectionCommand extends Command<StoredConnection> {
  constructor(
    readonly tenant: TenantContext,
    readonly id: string,
    readonly productName: string,
  ) {
    super();
  }
}
