/**
 * Limits: defaults merged with construction options, and per-request overrides that can
 * only lower them.
 */
import {
  EngineError,
  ErrorText,
  limitNotPositiveText,
  overrideExceedsText,
  overrideInvalidText,
} from './errors';

export interface Limits {
  readonly maxDatasources: number;
  readonly maxTablesPerDatasource: number;
  readonly maxFieldsPerTable: number;
  readonly maxConcurrency: number;
  readonly timeoutMs: number;
  readonly maxResultBytes: number;
  /** Copied into plans for connectors; never interpreted by the engine, never overridable. */
  readonly connectorHardLimits?: Readonly<Record<string, unknown>>;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxDatasources: 10,
  maxTablesPerDatasource: 20,
  maxFieldsPerTable: 50,
  maxConcurrency: 4,
  timeoutMs: 300_000,
  maxResultBytes: 268_435_456,
});
import { isPlainObject, isPositiveInteger } from './support/guards';

export type NumericLimit = Exclude<keyof Limits, 'connectorHardLimits'>;

export const NUMERIC_LIMITS: readonly NumericLimit[] = Object.freeze([
  'maxDatasources',
  'maxTablesPerDatasource',
  'maxFieldsPerTable',
  'maxConcurrency',
  'timeoutMs',
  'maxResultBytes',
]);

/** The override error texts keep the original's name for the timeout. */
const OVERRIDE_TEXT_NAME: Readonly<Record<NumericLimit, string>> = {
  maxDatasources: 'maxDatasources',
  maxTablesPerDatasource: 'maxTablesPerDatasource',
  maxFieldsPerTable: 'maxFieldsPerTable',
  maxConcurrency: 'maxConcurrency',
  timeoutMs: 'timeout',
  maxResultBytes: 'maxResultBytes',
};

/** Construction: every given limit must be a positive integer; absent ones take the default. */
export function mergeLimits(given: unknown): Limits {
  if (given === undefined || given === null) return copyLimits(DEFAULT_LIMITS);
  if (!isPlainObject(given)) throw new EngineError('validation', ErrorText.limitsInvalid);
  const merged: Record<string, unknown> = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (value === undefined) continue;
    if (key === 'connectorHardLimits') {
      if (!isPlainObject(value)) throw new EngineError('validation', ErrorText.limitsInvalid);
      merged[key] = Object.freeze({ ...value });
    } else if ((NUMERIC_LIMITS as readonly string[]).includes(key)) {
      if (!isPositiveInteger(value)) throw new EngineError('validation', limitNotPositiveText(key));
      merged[key] = value;
    } else {
      throw new EngineError('validation', ErrorText.limitsInvalid);
    }
  }
  return copyLimits(merged as unknown as Limits);
}

/**
 * Planner gate 4: a copy of the engine limits lowered by the request's overrides. A value <= 0
 * inherits; a larger positive value is refused rather than silently capped, so a caller learns
 * that its request cannot get what it asked for.
 */
export function applyOverrides(engine: Limits, overrides: unknown): Limits {
  if (overrides === undefined || overrides === null) return copyLimits(engine);
  if (!isPlainObject(overrides)) throw new EngineError('validation', ErrorText.invalidRequest);
  const effective: Record<string, unknown> = { ...engine };
  for (const key of Object.keys(overrides)) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!(NUMERIC_LIMITS as readonly string[]).includes(key)) {
      // connectorHardLimits belongs to the host alone; unknown names are typos worth reporting.
      throw new EngineError('validation', key === 'connectorHardLimits' ? overrideInvalidText(key) : ErrorText.invalidRequest);
    }
    const name = key as NumericLimit;
    if (typeof value !== 'number' || Number.isNaN(value)) {
      throw new EngineError('validation', overrideInvalidText(OVERRIDE_TEXT_NAME[name]));
    }
    if (value <= 0) continue;
    if (!Number.isSafeInteger(value)) throw new EngineError('validation', overrideInvalidText(OVERRIDE_TEXT_NAME[name]));
    if (value > engine[name]) throw new EngineError('validation', overrideExceedsText(OVERRIDE_TEXT_NAME[name]));
    effective[name] = value;
  }
  return copyLimits(effective as unknown as Limits);
}

/** A plan's limits, checked and never above the engine's (a hand-made plan cannot raise them). */
export function capLimits(engine: Limits, planned: unknown): Limits | undefined {
  if (!isPlainObject(planned)) return undefined;
  const capped: Record<string, unknown> = { ...engine };
  for (const name of NUMERIC_LIMITS) {
    const value = planned[name];
    if (!isPositiveInteger(value)) return undefined;
    capped[name] = Math.min(value, engine[name]);
  }
  return copyLimits(capped as unknown as Limits);
}

export function copyLimits(limits: Limits): Limits {
  const copy: Record<string, unknown> = {};
  for (const name of NUMERIC_LIMITS) copy[name] = limits[name];
  if (limits.connectorHardLimits !== undefined) copy.connectorHardLimits = Object.freeze({ ...limits.connectorHardLimits });
  return Object.freeze(copy) as unknown as Limits;
}
