import { v7 as uuidv7 } from 'uuid';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// An incoming id is trusted only if it is short and plain: it ends up in every log line and message.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** The request id to use: the caller's `X-Request-Id` when acceptable, else a fresh UUIDv7. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_REQUEST_ID.test(value) ? value : uuidv7();
}
