import type { ConnectReason } from '@fetcher/engine';

/**
 * The class of a failed dial, read from the structured codes drivers and Node set on their errors
 * (SQLSTATE, `ER_*`, `errorNum`, `ECONNREFUSED`...), never from message text. Each connector passes
 * its driver's codes; Node's socket, DNS and TLS codes are recognised for all of them.
 */
export type DriverReason = (error: object) => ConnectReason | undefined;

/** Node's own codes: sockets, DNS and TLS (on the error, or on one a driver wraps). */
const NODE_CODES: Readonly<Record<string, ConnectReason>> = Object.freeze({
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'timeout',
  ENOTFOUND: 'host_not_found',
  EAI_AGAIN: 'host_not_found',
  EAI_NONAME: 'host_not_found',
  EAI_NODATA: 'host_not_found',
  EPROTO: 'tls',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls',
  UNABLE_TO_GET_ISSUER_CERT: 'tls',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls',
  CERT_HAS_EXPIRED: 'tls',
  CERT_NOT_YET_VALID: 'tls',
  CERT_UNTRUSTED: 'tls',
  CERT_REJECTED: 'tls',
  CERT_SIGNATURE_FAILURE: 'tls',
  HOSTNAME_MISMATCH: 'tls',
});

/** Node's own code classes: `ERR_TLS_*` and `ERR_SSL_*` are handshake or certificate failures. */
export function nodeReason(error: object): ConnectReason | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  if (Object.hasOwn(NODE_CODES, code)) return NODE_CODES[code];
  return /^ERR_(TLS|SSL)_/.test(code) ? 'tls' : undefined;
}

/**
 * Walks the error and what it wraps (`cause`, mssql's `originalError`, AggregateError's `errors`,
 * MongoDB's server-selection `reason`), breadth first and bounded, and answers the first class the
 * driver's codes or Node's recognise. Driver codes win over Node's at each error.
 */
export function connectReason(error: unknown, driver: DriverReason = () => undefined): ConnectReason | undefined {
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && seen.size < 32) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const found = safely(() => driver(current) ?? nodeReason(current));
    if (found) return found;
    queue.push(...(safely<unknown[]>(() => wrapped(current)) ?? []));
  }
  return undefined;
}

function wrapped(error: object): unknown[] {
  const e = error as { cause?: unknown; originalError?: unknown; errors?: unknown; reason?: unknown };
  const out: unknown[] = [e.cause, e.originalError];
  if (Array.isArray(e.errors)) out.push(...(e.errors as unknown[]));
  // MongoServerSelectionError.reason is a TopologyDescription: each server's description keeps its last error.
  const servers = (e.reason as { servers?: unknown } | undefined)?.servers;
  if (servers instanceof Map) for (const server of servers.values()) out.push((server as { error?: unknown } | null)?.error);
  return out;
}

/** A getter or proxy that throws must not turn a classified failure into another failure. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
