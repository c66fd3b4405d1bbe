import { envReader } from '@fetcher/platform';

export const WORKER_CONFIG = Symbol('WorkerConfig');

export interface WorkerConfig {
  readonly health: { readonly port: number };
  readonly version: string;
}

const DEFAULT_HEALTH_PORT = 4007;

/**
 * Parses the Worker's environment once, at startup. The full variable set and the startup refusals
 * (worker-engine.md A12, A13) arrive with the Worker issue; this is the boot skeleton.
 */
export function loadWorkerConfig(env: Readonly<Record<string, string | undefined>>): WorkerConfig {
  const value = envReader(env);
  return Object.freeze({ health: Object.freeze({ port: healthPort(value('HEALTH_PORT')) }), version: value('VERSION') ?? '0.0.0' });
}

/** A11: a value <= 0, > 65535 or not a number means the default, as in the original. */
function healthPort(raw: string | undefined): number {
  const port = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(port) && port > 0 && port <= 65_535 ? port : DEFAULT_HEALTH_PORT;
}
