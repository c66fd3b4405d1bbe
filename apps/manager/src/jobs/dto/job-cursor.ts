import type { JobListPosition } from '../../ports/job-repository.port';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The job list's cursor: base64url of `{"c":<createdAt ISO>,"i":<id>}`, the last job of a page.
 * Clients treat it as opaque; it carries no filter, so a client that changes filters between pages
 * gets the new filters from that position on.
 */
export function encodeJobCursor(position: JobListPosition): string {
  return Buffer.from(JSON.stringify({ c: position.createdAt.toISOString(), i: position.id })).toString('base64url');
}

/** The position a cursor names, or `undefined` for anything this service did not issue. */
export function decodeJobCursor(cursor: string): JobListPosition | undefined {
  if (!BASE64URL.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { c, i } = value as Record<string, unknown>;
  if (typeof c !== 'string' || typeof i !== 'string' || !CANONICAL_UUID.test(i)) return undefined;
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== c) return undefined;
  return { createdAt, id: i };
}
