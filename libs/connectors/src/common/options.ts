import { EngineError } from '@fetcher/engine';
import type { HostSafetyPolicy, LookupFn } from './host-safety';
import { DEFAULT_CONNECTOR_TIMEOUTS, type ConnectorTimeouts } from './timeouts';

/** What a host gives every connector factory. */
export interface ConnectorOptions {
  readonly hostSafety: HostSafetyPolicy;
  /** Overrides of the default budgets (tests shorten them); absent fields keep the defaults. */
  readonly timeouts?: Partial<ConnectorTimeouts>;
  /** DNS lookup used by the dial guard; tests point a hostname at a checked address with it. */
  readonly lookup?: LookupFn;
}

const TIMEOUT_KEYS = Object.keys(DEFAULT_CONNECTOR_TIMEOUTS) as (keyof ConnectorTimeouts)[];

/** The effective budgets. A present value that is not a positive finite number is a wiring mistake and throws. */
export function resolveTimeouts(options: ConnectorOptions): ConnectorTimeouts {
  const overrides = options.timeouts ?? {};
  const resolved: Record<keyof ConnectorTimeouts, number> = { ...DEFAULT_CONNECTOR_TIMEOUTS };
  for (const key of TIMEOUT_KEYS) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new EngineError('validation', 'connector timeouts are invalid');
    }
    resolved[key] = value;
  }
  return Object.freeze(resolved);
}
