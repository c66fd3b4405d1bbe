import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { JOB_COLLECTION } from '@fetcher/contracts';
import type { TenantContext } from '@fetcher/engine';
import type { Connection, mongo } from 'mongoose';
import type { ActiveExecutionChecker } from '../../ports/active-execution-checker.port';

/** Where a tenant's `job` collection is: the deployment's database, or the tenant's own. */
export type JobsFor = (tenant: TenantContext) => mongo.Collection | Promise<mongo.Collection>;

/** Busy means a pending or processing job maps fields of the config name (`mapped_fields.<name>` exists). */
export class MongoActiveExecutions implements ActiveExecutionChecker {
  constructor(private readonly jobsFor: JobsFor) {}

  async hasActiveExecutions(tenant: TenantContext, configName: string): Promise<boolean> {
    // Config names are letters, digits, `_` and `-` (create and the internal-datasource reader
    // refuse anything else), so the name cannot open another path segment or an operator.
    const found = await (await this.jobsFor(tenant))
      .findOne({ status: { $in: ['pending', 'processing'] }, [`mapped_fields.${configName}`]: { $exists: true } }, { projection: { _id: 1 } });
    return found !== null;
  }
}

/** The single-tenant checker, on the deployment's one database. */
@Injectable()
export class MongoActiveExecutionChecker extends MongoActiveExecutions {
  constructor(@InjectConnection() connection: Connection) {
    super(() => connection.collection(JOB_COLLECTION));
  }
}
