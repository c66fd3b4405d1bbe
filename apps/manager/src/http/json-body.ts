import { Errors } from '../errors/catalogue';
import { withinJsonBounds } from './json-bounds';

/**
 * What the Fastify content-type parser hands a route: the raw bytes and the declared type. The
 * routes decide JSON-ness themselves, so that a wrong or missing content type, malformed JSON and
 * a non-object body all become the contract's 400/FET-0001 instead of Fastify's 415 or 400.
 */
export class RawBody {
  constructor(
    readonly contentType: string | undefined,
    readonly bytes: Buffer,
  ) {}
}

const JSON_TYPE = /^application\/json\s*(;.*)?$/i;

/**
 * The parse stage: a JSON object or 400/FET-0001 "unable to parse request body" with the parse
 * reason (content type, malformed JSON, not an object, out of bounds). A body with a
 * number beyond the double range or nested deeper than MAX_JSON_DEPTH does not parse either.
 */
export function parseJsonObject(body: unknown): Record<string, unknown> {
  if (!(body instanceof RawBody)) throw Errors.parseFailed('malformed_json');
  if (body.contentType === undefined || !JSON_TYPE.test(body.contentType.trim())) throw Errors.parseFailed('content_type');
  if (body.bytes.length === 0) throw Errors.parseFailed('malformed_json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.bytes.toString('utf8'));
  } catch {
    throw Errors.parseFailed('malformed_json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw Errors.parseFailed('not_an_object');
  if (!withinJsonBounds(parsed)) throw Errors.parseFailed('out_of_bounds');
  return parsed as Record<string, unknown>;
}
