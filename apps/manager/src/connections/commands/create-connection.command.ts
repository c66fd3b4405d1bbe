import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { StoredConnection } from '../../ports/connection-repository.port';
import type { CreateConnectionInput } from '../dto/create-connection.request';

export class CreateConnectionCommand extends Command<StoredConnection> {
  constructor(
    readonly tenant: TenantContext,
    readonly productName: string,
    readonly input: CreateConnectionInput,
  ) {
    super();
  }
}
