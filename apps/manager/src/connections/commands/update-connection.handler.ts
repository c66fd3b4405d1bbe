import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Engine } from '@fetcher/engine';
import { Errors } from '../../errors/catalogue';
import { CLOCK, type Clock } from '../../ports/clock.port';
import { CONNECTION_REPOSITORY, type ConnectionRepository, type StoredConnection } from '../../ports/connection-repository.port';
import { ENGINE } from '../../ports/engine.port';
import { SCHEMA_CACHE_INVALIDATOR, type SchemaCacheInvalidator } from '../../ports/schema-cache-invalidator.port';
import { ConnectionDirectory } from '../connection-directory';
import { domainProblems } from '../connection-rules';
import { HostLiteralCheck } from '../host-literal-check';
import { UpdateConnectionCommand } from './update-connection.command';

/**
 * PATCH: literal host check, load, active-job gate, apply, domain rules, persist. A record under
 * an older key version (or with plaintext legacy SSL material) is re-encrypted in the same write,
 * and the schema cache of the old and new name is dropped.
 */
@CommandHandler(UpdateConnectionCommand)
export class UpdateConnectionHandler implements ICommandHandler<UpdateConnectionCommand> {
  constructor(
    @Inject(CONNECTION_REPOSITORY) private readonly repository: ConnectionRepository,
    @Inject(ENGINE) private readonly engine: Engine,
    @Inject(SCHEMA_CACHE_INVALIDATOR) private readonly cache: SchemaCacheInvalidator,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly directory: ConnectionDirectory,
    private readonly hostCheck: HostLiteralCheck,
  ) {}

  async execute({ tenant, id, patch }: UpdateConnectionCommand): Promise<StoredConnection> {
    if (patch.host !== undefined && patch.host.trim() !== '') this.hostCheck.check(patch.host.trim());
    const current = await this.repository.findLiveById(tenant, id);
    if (!current) throw Errors.entityNotFound('connection');
    if (await this.engine.checkActiveExecutions(tenant, current.configName)) throw Errors.jobInProgress('update');

    const credentials = this.directory.credentials;
    let next: StoredConnection = credentials.upgrade(current);
    next = {
      ...next,
      ...(patch.configName !== undefined ? { configName: patch.configName.trim() } : {}),
      ...(patch.type !== undefined ? { type: patch.type } : {}),
      ...(patch.host !== undefined ? { host: patch.host.trim() } : {}),
      ...(patch.port !== undefined ? { port: patch.port } : {}),
      ...(patch.databaseName !== undefined ? { databaseName: patch.databaseName.trim() } : {}),
      ...(patch.schema !== undefined ? { schema: patch.schema } : {}),
      ...(patch.userName !== undefined ? { userName: patch.userName.trim() } : {}),
      ...(patch.metadata !== undefined ? { metadata: patch.metadata } : {}),
      updatedAt: this.clock.now(),
    };
    if (patch.password !== undefined && patch.password !== '') {
      const sealed = credentials.sealPassword(patch.password);
      next = { ...next, passwordEncrypted: sealed.ciphertext, keyVersion: sealed.keyVersion };
    }
    // Quirk kept: the SSL block changes only together with a mode, and is then replaced whole.
    if (patch.ssl) next = { ...next, ssl: credentials.sealSsl(patch.ssl) };

    const problems = domainProblems({
      configName: next.configName,
      type: next.type,
      host: next.host,
      port: next.port,
      databaseName: next.databaseName,
      userName: next.userName,
      hasPassword: next.passwordEncrypted !== '',
      ...(next.ssl ? { ssl: { mode: next.ssl.mode, hasCa: patch.ssl ? patch.ssl.ca !== '' : hasCa(next) } } : {}),
    });
    if (problems.length > 0) throw Errors.fieldProblems(problems, 'connection');
    if (next.configName !== current.configName) {
      if (await this.directory.isInternalName(tenant, next.configName)) throw Errors.connectionConflict();
      const clash = await this.repository.findLiveByName(tenant, next.configName);
      if (clash && clash.id !== current.id) throw Errors.connectionConflict();
    }
    if (!(await this.repository.replace(tenant, next))) throw Errors.entityNotFound('connection');
    await this.cache.invalidate(tenant, [current.configName, next.configName]);
    return next;
  }
}

function hasCa(c: StoredConnection): boolean {
  return Boolean(c.ssl?.caEncrypted || c.ssl?.legacyCa);
}
