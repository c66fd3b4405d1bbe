import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { StoredConnection } from '../../ports/connection-repository.port';
import type { ConnectionPatchInput } from '../dto/update-connection.request';

export class UpdateConnectionCommand extends Command<StoredConnection> {
  constructor(
    readonly tenant: TenantContext,
    readonly id: string,
    readonly patch: ConnectionPatchInput,
  ) {
    super();
  }
}
