import { EngineError } from '@fetcher/engine';
import { connectError } from '../common/errors';
import { abortError, throwIfAborted, withTimeout } from '../common/abort';
import { connectReason, type DriverReason } from '../common/connect-reason';

/**
 * Runs the connect stage (host check, dial, login, first ping) within `budgetMs`. Failures become
 * connectError(cause) with the driver's text kept hidden as the cause, except the guard's own
 * validation errors (host or ssl mode refused), which pass as they are, and the caller's abort,
 * which stays an abort. `cleanup` (end the half-open pool) runs before the failure propagates.
 * The failure's reason comes from `driverReason` and Node's codes; the budget's end is `timeout`.
 */
export async function runConnectStage<T>(
  signal: AbortSignal,
  budgetMs: number,
  work: (budget: AbortSignal) => Promise<T>,
  cleanup: () => Promise<void>,
  driverReason?: DriverReason,
): Promise<T> {
  throwIfAborted(signal);
  const budget = withTimeout(signal, budgetMs);
  try {
    return await work(budget);
  } catch (error) {
    await cleanup().catch(() => undefined);
    if (signal.aborted) throw abortError(signal);
    if (error instanceof EngineError && error.category === 'validation') throw error;
    if (error instanceof EngineError && error.category === 'connect' && (error.reason || !budget.aborted)) throw error;
    throw connectError(error, budget.aborted ? 'timeout' : connectReason(error, driverReason));
  }
}
