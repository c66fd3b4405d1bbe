import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { TenantContext } from '@fetcher/engine';
import type { Connection } from 'mongoose';
import type { ActiveExecutionChecker } from '../../ports/active-execution-checker.port';

/** Busy means a pending or processing job maps fields of the config name (`mapped_fields.<name>` exists). */
@Injectable()
export class MongoActiveExecutionChecker implements ActiveExecutionChecker {
  constructor(@InjectConnection() private readonly connection: Connection) {}

  async hasActiveExecutions(_tenant: TenantContext, configName: string): Promise<boolean> {
    // Config names are letters, digits, `_` and `-` (create and the internal-datasource reader
    // refuse anything else), so the name cannot open another path segment or an operator.
    const found = await this.connection
      .collection('job')
      .findOne({ status: { $in: ['pending', 'processing'] }, [`mapped_fields.${configName}`]: { $exists: true } }, { projection: { _id: 1 } });
    return found !== null;
  }
}
