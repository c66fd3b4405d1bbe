import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Engine } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_REPOSITORY, type ConnectionRepository } from '../../ports/connection-repository.port';
import { ENGINE } from '../../ports/engine.port';
import { SCHEMA_CACHE_INVALIDATOR, type SchemaCacheInvalidator } from '../../ports/schema-cache-invalidator.port';
import { DeleteConnectionCommand } from './delete-connection.command';

/** Soft delete: load (404), active-job gate (409/FET-1021), mark deleted, drop the cached schemas. */
@CommandHandler(DeleteConnectionCommand)
export class DeleteConnectionHandler implements ICommandHandler<DeleteConnectionCommand> {
  constructor(
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    @Inject(ENGINE) private readonly engine: Engine,
    @Inject(SCHEMA_CACHE_INVALIDATOR) private readonly cache: SchemaCacheInvalidator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenant, id }: DeleteConnectionCommand): Promise<void> {
    const current = await this.repository.findLiveById(tenant, id);
    if (!current) throw Errors.entityNotFound('connection');
    if (await this.engine.checkActiveExecutions(tenant, current.configName)) throw Errors.jobInProgress('delete');
    if (!(await this.repository.softDelete(tenant, id, this.clock.now()))) throw Errors.entityNotFound('connection');
    await this.cache.invalidate(tenant, [current.configName]);
  }
}
