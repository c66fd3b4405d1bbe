/**
 * Address pinning for the MongoDB driver.
 *
 * The connection string keeps the original hostname, so the driver derives TLS SNI and certificate
 * verification from it; the socket's `lookup` hook answers with the address the dial guard checked,
 * so no second DNS answer can slip in between check and connect. The connection is always direct
 * (client-options.mongodb.ts), so the driver dials no other host; should it ask for another name
 * anyway, that name goes through the same guard.
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { DialTarget } from '../common/host-safety';

export type ResolveTarget = (hostname: string) => Promise<DialTarget>;

/**
 * `hostname` resolves to `target` without any lookup; every other name is resolved and checked by
 * `resolveOther` (resolveDialTarget with the connector's policy). Node asks with `all: true` when it
 * may race address families, so both answer shapes are supported.
 */
export function pinnedLookup(hostname: string, target: DialTarget, resolveOther: ResolveTarget): LookupFunction {
  const pinned = normaliseHostname(hostname);
  return (name, options, callback) => {
    const answer = normaliseHostname(name) === pinned ? Promise.resolve(target) : resolveOther(name);
    answer.then(
      ({ address, family }) => {
        if (options.all === true) callback(null, [{ address, family } satisfies LookupAddress]);
        else callback(null, address, family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error('lookup failed'), ''),
    );
  };
}

/** Names compare case-insensitively and without a trailing dot, as host safety compares them. */
function normaliseHostname(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
