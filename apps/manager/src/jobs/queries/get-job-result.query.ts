import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { VerifiedResult } from '../result/verified-result';

/** The decrypted result of a completed job, checked before anything of it is sent. */
export class GetJobResultQuery extends Query<VerifiedResult> {
  constructor(
    readonly tenant: TenantContext,
    readonly jobId: string,
  ) {
    super();
  }
}
