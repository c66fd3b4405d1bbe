/** ExecutionStore that records every save attempt in order, failing ones included. */
import { EngineError, ErrorText } from '../errors';
import type { ExecutionState, ExecutionStatus, TenantContext } from '../models';
import type { ExecutionStore } from '../ports';
import { attempt, throwKnob, type Knob } from './harness-support';

export interface RecordedExecution {
  readonly tenantId: string;
  readonly state: ExecutionState;
}

export class RecordingExecutionStore implements ExecutionStore {
  saveErr: Knob = undefined;
  readonly records: RecordedExecution[] = [];

  saveExecution(tenant: TenantContext, state: ExecutionState): Promise<void> {
    return attempt(() => {
      this.records.push({ tenantId: tenant.tenantId, state: { ...state } });
      throwKnob(this.saveErr, () => new EngineError('unavailable', ErrorText.executionStoreUnavailable));
    });
  }

  /** The recorded status sequence, optionally for one job. */
  statuses(jobId?: string): ExecutionStatus[] {
    return this.records.filter((r) => jobId === undefined || r.state.jobId === jobId).map((r) => r.state.status);
  }
}
