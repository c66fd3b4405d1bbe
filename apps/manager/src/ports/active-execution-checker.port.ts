import type { ActiveExecutionChecker } from '@fetcher/engine';

/**
 * The engine's port, re-exported under the Manager's token: true when a pending or processing job
 * maps fields of the connection's config name. Failures reject (the HTTP answer is 500/FET-0002).
 */
export type { ActiveExecutionChecker };
export const ACTIVE_EXECUTION_CHECKER = Symbol('ActiveExecutionChecker');
