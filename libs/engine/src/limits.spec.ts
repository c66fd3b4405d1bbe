import { ErrorText } from './errors';
import { DEFAULT_LIMITS } from './limits';
import { applyOverrides, capLimits, mergeLimits } from './limits';

describe(mergeLimits.name, () => {
  it('fills absent limits with the defaults and ignores undefined values', () => {
    expect(mergeLimits(undefined)).toEqual(DEFAULT_LIMITS);
    expect(mergeLimits({ maxDatasources: 3, timeoutMs: undefined })).toEqual({ ...DEFAULT_LIMITS, maxDatasources: 3 });
  });

  it('copies the connector hard limits and refuses a non-object', () => {
    const hard = { rows: 1 };
    const merged = mergeLimits({ connectorHardLimits: hard });
    hard.rows = 2;
    expect(merged.connectorHardLimits).toEqual({ rows: 1 });
    expect(() => mergeLimits({ connectorHardLimits: 5 })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.limitsInvalid }));
  });
});

describe(applyOverrides.name, () => {
  it('names every limit in its error text, with "timeout" for timeoutMs', () => {
    const names = {
      maxDatasources: 'maxDatasources',
      maxTablesPerDatasource: 'maxTablesPerDatasource',
      maxFieldsPerTable: 'maxFieldsPerTable',
      maxConcurrency: 'maxConcurrency',
      timeoutMs: 'timeout',
      maxResultBytes: 'maxResultBytes',
    };
    for (const [key, text] of Object.entries(names)) {
      const above = (DEFAULT_LIMITS as unknown as Record<string, number>)[key] + 1;
      expect(() => applyOverrides(DEFAULT_LIMITS, { [key]: above })).toThrow(expect.objectContaining({ category: 'validation', message: `limit override exceeds the configured maximum: limits.${text}` }));
    }
  });

  it('lets equal values through, inherits non-positive ones and refuses fractions and NaN', () => {
    expect(applyOverrides(DEFAULT_LIMITS, { maxConcurrency: 4, maxDatasources: 0, timeoutMs: -5 })).toEqual(DEFAULT_LIMITS);
    expect(() => applyOverrides(DEFAULT_LIMITS, { maxConcurrency: 1.5 })).toThrow(expect.objectContaining({ category: 'validation', message: 'limit override is invalid: limits.maxConcurrency' }));
    expect(() => applyOverrides(DEFAULT_LIMITS, { timeoutMs: Number.NaN })).toThrow(expect.objectContaining({ category: 'validation', message: 'limit override is invalid: limits.timeout' }));
  });
});

describe(capLimits.name, () => {
  it('never returns a limit above the engine and refuses malformed limits', () => {
    expect(capLimits({ ...DEFAULT_LIMITS, maxConcurrency: 2 }, { ...DEFAULT_LIMITS, maxConcurrency: 8 })?.maxConcurrency).toBe(2);
    expect(capLimits(DEFAULT_LIMITS, { ...DEFAULT_LIMITS, timeoutMs: '5' })).toBeUndefined();
    expect(capLimits(DEFAULT_LIMITS, null)).toBeUndefined();
  });
});
