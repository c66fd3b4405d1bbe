import { Command } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';

export interface TestConnectionResult {
  readonly status: 'success';
  readonly message: 'Connection successful';
  readonly latencyMs: number;
}

export class TestConnectionCommand extends Command<TestConnectionResult> {
  constructor(
    readonly tenant: TenantContext,
    readonly id: string,
  ) {
    super();
  }
}
