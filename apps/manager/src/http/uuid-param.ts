import { Errors, type EntityKind } from '../errors/catalogue';

const HEX32 = /^[0-9a-f]{32}$/;
const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The lenient UUID parser clients rely on: the canonical 36-character form, the same in braces,
 * with a `urn:uuid:` prefix, or 32 bare hex digits, in any letter case. A stricter parser would
 * turn some of today's 404s into 400s. Returns the lower-case canonical form, or undefined.
 */
export function parseLenientUuid(value: string): string | undefined {
  if (CANONICAL.test(value)) return value; // what nearly every caller sends: no copies to make
  let text = value.toLowerCase();
  if (text.startsWith('urn:uuid:')) text = text.slice('urn:uuid:'.length);
  else if (text.length === 38 && text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  let hex: string;
  if (text.length === 36) {
    if (text[8] !== '-' || text[13] !== '-' || text[18] !== '-' || text[23] !== '-') return undefined;
    hex = text.slice(0, 8) + text.slice(9, 13) + text.slice(14, 18) + text.slice(19, 23) + text.slice(24);
  } else if (text.length === 32) {
    hex = text;
  } else return undefined;
  if (!HEX32.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The path `{id}` of a connection or job route: 400/FET-0404 when it is not a UUID. */
export function requireIdParam(value: unknown, entity: EntityKind): string {
  const id = typeof value === 'string' ? parseLenientUuid(value) : undefined;
  if (id === undefined) throw Errors.invalidPathParameter(entity);
  return id;
}
