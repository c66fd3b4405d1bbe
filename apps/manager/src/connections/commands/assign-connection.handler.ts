import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_REPOSITORY, type ConnectionRepository, type StoredConnection } from '../../ports/connection-repository.port';
import { AssignConnectionCommand } from './assign-connection.command';

/**
 * One-time assignment of a product to a connection that has none. Atomic: the update matches only
 * an unassigned live record, so a second assignment (even to the same product) is 409/FET-1015.
 */
@CommandHandler(AssignConnectionCommand)
export class AssignConnectionHandler implements ICommandHandler<AssignConnectionCommand> {
  constructor(
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenant, id, productName }: AssignConnectionCommand): Promise<StoredConnection> {
    if (!(await this.repository.findLiveById(tenant, id))) throw Errors.entityNotFound('connection');
    const assigned = await this.repository.assignProduct(tenant, id, productName, this.clock.now());
    if (!assigned) throw Errors.connectionAlreadyAssigned();
    return assigned;
  }
}
