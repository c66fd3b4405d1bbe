import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { v7 as uuidv7 } from 'uuid';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_REPOSITORY, type ConnectionRepository, type StoredConnection } from '../../ports/connection-repository.port';
import { ConnectionDirectory } from '../connection-directory';
import { domainProblems } from '../connection-rules';
import { HostLiteralCheck } from '../host-literal-check';
import { CreateConnectionCommand } from './create-connection.command';

/**
 * Create: host safety on the literal, domain rules, no clash with an internal datasource or a live
 * connection, then insert with the secrets encrypted. No connectivity test happens here.
 */
@CommandHandler(CreateConnectionCommand)
export class CreateConnectionHandler implements ICommandHandler<CreateConnectionCommand> {
  constructor(
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly directory: ConnectionDirectory,
    private readonly hostCheck: HostLiteralCheck,
  ) {}

  async execute({ tenant, productName, input }: CreateConnectionCommand): Promise<StoredConnection> {
    const host = input.host.trim();
    this.hostCheck.check(host);
    const configName = input.configName.trim();
    const ssl = input.ssl;
    const problems = domainProblems({
      configName,
      type: input.type,
      host,
      port: input.port,
      databaseName: input.databaseName.trim(),
      userName: input.userName.trim(),
      // The body had a password (possibly empty); sealed, it is never an empty ciphertext.
      hasPassword: true,
      productName,
      ...(ssl ? { ssl: { mode: ssl.mode, hasCa: ssl.ca !== '' } } : {}),
    });
    if (problems.length > 0) throw Errors.fieldProblems(problems, 'connection');
    if (await this.directory.isInternalName(tenant, configName)) throw Errors.connectionConflict();
    if (await this.repository.findLiveByName(tenant, configName)) throw Errors.connectionConflict();

    const credentials = this.directory.credentials;
    const sealed = credentials.sealPassword(input.password);
    const now = this.clock.now();
    const connection: StoredConnection = {
      id: uuidv7(),
      productName,
      configName,
      type: input.type,
      host,
      port: input.port,
      databaseName: input.databaseName.trim(),
      ...(input.schema ? { schema: input.schema } : {}),
      userName: input.userName.trim(),
      passwordEncrypted: sealed.ciphertext,
      keyVersion: sealed.keyVersion,
      ...(ssl ? { ssl: credentials.sealSsl(ssl) } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insert(tenant, connection);
    return connection;
  }
}
