/**
 * Filter values bound by column kind. The check and the normal form are the engine's own
 * (`normaliseFilterValue`), the very one its planner applies, so a value the planner accepted is
 * always bound here. The original forced UUID parsing on any field whose name contained `id`
 * (`width`, `valid_until`...); here only the discovered kind decides.
 */
import { EngineError, filterTypeMismatchText, normaliseFilterValue, type ColumnKind } from '@fetcher/engine';

export { nextDayStart, parseInstant, type ParsedInstant } from '@fetcher/engine';

/**
 * A checked filter value. Forms: integer bigint; decimal exact string; float number; boolean
 * boolean; uuid lower-case string; date 'YYYY-MM-DD'; datetime ISO UTC string with Z; objectId
 * lower-case 24-hex string; string/json/time/other string; binary Uint8Array; null only for eq/ne.
 */
export interface BoundValue {
  readonly kind: ColumnKind;
  readonly value: string | number | boolean | bigint | Uint8Array | null;
}

export function valueMismatch(path: string): EngineError {
  return new EngineError('validation', filterTypeMismatchText(path));
}

/** Checks one non-null value against `kind`; `path` names the field in the error text. */
export function bindFilterValue(kind: ColumnKind, value: unknown, path: string): BoundValue {
  const normal = normaliseFilterValue(kind, value);
  if (normal === undefined) throw valueMismatch(path);
  if (kind === 'binary') return { kind, value: new Uint8Array(Buffer.from(normal as string, 'base64')) };
  return { kind, value: normal };
}
