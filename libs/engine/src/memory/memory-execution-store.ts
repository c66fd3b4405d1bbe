/** ExecutionStore in memory: the last state per (tenant, jobId). */
import { EngineError, ErrorText } from '../errors';
import type { ExecutionState, TenantContext } from '../models';
import type { ExecutionStore } from '../ports';
import { attempt, tenantKey, throwKnob, type Knob } from './harness-support';

export class MemoryExecutionStore implements ExecutionStore {
  /** `true` (or an error to throw): every save fails; default unavailable "execution store unavailable". */
  saveErr: Knob = undefined;
  saveCount = 0;
  readonly #states = new Map<string, ExecutionState>();

  saveExecution(tenant: TenantContext, state: ExecutionState): Promise<void> {
    return attempt(() => {
      this.saveCount++;
      throwKnob(this.saveErr, () => new EngineError('unavailable', ErrorText.executionStoreUnavailable));
      this.#states.set(tenantKey(tenant, state.jobId ?? ''), { ...state });
    });
  }

  /** The last saved state of a job (a plan without requestId saves under the empty job id). */
  find(tenant: TenantContext, jobId = ''): ExecutionState | undefined {
    const state = this.#states.get(tenantKey(tenant, jobId));
    return state ? { ...state } : undefined;
  }
}
