/**
 * Connector time budgets. The original relied on driver defaults, which
 * in Node can mean "wait forever"; every stage here has a bound.
 */
export interface ConnectorTimeouts {
  /** SQL pool open + first ping. */
  readonly connectMs: number;
  /** MongoDB connect, server selection and ping, each. */
  readonly mongoConnectMs: number;
  /** Whole schema discovery. */
  readonly discoveryMs: number;
  /** One table query without filters. */
  readonly queryMs: number;
  /** One table query with filters. */
  readonly filteredQueryMs: number;
}

export const DEFAULT_CONNECTOR_TIMEOUTS: ConnectorTimeouts = Object.freeze({
  connectMs: 10_000,
  mongoConnectMs: 5_000,
  discoveryMs: 30_000,
  queryMs: 60_000,
  filteredQueryMs: 120_000,
});

/** The statement budget of one table query: filtered reads get the longer one. */
export function queryTimeoutMs(timeouts: ConnectorTimeouts, filtered: boolean): number {
  return filtered ? timeouts.filteredQueryMs : timeouts.queryMs;
}
