import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';

export class DeleteConnectionCommand extends Command<void> {
  constructor(
    readonly tenant: TenantContext,
    readonly id: string,
  ) {
    super();
  }
}
