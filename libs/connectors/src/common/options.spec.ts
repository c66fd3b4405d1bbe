import { EngineError } from '@fetcher/engine';
import { DEFAULT_HOST_SAFETY_POLICY } from './host-safety';
import { resolveTimeouts } from './options';
import { DEFAULT_CONNECTOR_TIMEOUTS, queryTimeoutMs } from './timeouts';

describe('resolveTimeouts', () => {
  it('keeps the default budgets when nothing is overridden', () => {
    expect(resolveTimeouts({ hostSafety: DEFAULT_HOST_SAFETY_POLICY })).toEqual({
      connectMs: 10_000,
      mongoConnectMs: 5_000,
      discoveryMs: 30_000,
      queryMs: 60_000,
      filteredQueryMs: 120_000,
    });
  });

  it('replaces only the given budgets', () => {
    const timeouts = resolveTimeouts({ hostSafety: DEFAULT_HOST_SAFETY_POLICY, timeouts: { queryMs: 5 } });
    expect(timeouts).toEqual({ ...DEFAULT_CONNECTOR_TIMEOUTS, queryMs: 5 });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %p as a budget', (value) => {
    const attempt = () => resolveTimeouts({ hostSafety: DEFAULT_HOST_SAFETY_POLICY, timeouts: { connectMs: value } });
    expect(attempt).toThrow(EngineError);
    expect(attempt).toThrow(expect.objectContaining({ category: 'validation', message: 'connector timeouts are invalid' }));
  });

  it('gives filtered queries the longer budget', () => {
    expect(queryTimeoutMs(DEFAULT_CONNECTOR_TIMEOUTS, false)).toBe(60_000);
    expect(queryTimeoutMs(DEFAULT_CONNECTOR_TIMEOUTS, true)).toBe(120_000);
  });
});
