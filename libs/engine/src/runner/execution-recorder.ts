/** Execution states saved best-effort: a failing store never fails a run. */
import type { ExecutionState, TenantContext } from '../models';
import type { ExecutionStore } from '../ports';

export class ExecutionRecorder {
  readonly #store: ExecutionStore | undefined;

  constructor(store: ExecutionStore | undefined) {
    this.#store = store;
  }

  async save(tenant: TenantContext, state: ExecutionState): Promise<void> {
    if (!this.#store) return;
    try {
      await this.#store.saveExecution(tenant, state);
    } catch {
      // Best-effort by contract: the extraction's outcome does not depend on bookkeeping.
    }
  }
}
