/**
 * Host safety, the SSRF guard.
 *
 * Two stages: `checkHostLiteral` looks at the configured value only (create / PATCH, no DNS), and
 * `resolveDialTarget` runs before every dial: it resolves the name once, checks EVERY address and
 * returns one of them, so that the driver connects to exactly the address that was checked (no
 * DNS-rebinding window between check and connect). Errors never echo the host or the range.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { EngineError } from '@fetcher/engine';
import { connectError, hostNotAllowed } from './errors';
import { connectReason } from './connect-reason';

export interface HostSafetyPolicy {
  /** Private ranges and names (10/8, fc00::/7, *.internal, ...): true in single-tenant mode, false in multi-tenant mode. */
  readonly allowPrivate: boolean;
  /** Hostnames (exact, case-insensitive, trailing dot ignored) and CIDRs (or bare IPs); a match overrides every denial. */
  readonly allowlist: readonly string[];
}

export const DEFAULT_HOST_SAFETY_POLICY: HostSafetyPolicy = Object.freeze({
  allowPrivate: true,
  allowlist: Object.freeze<string[]>([]),
});

export type LookupFn = (hostname: string) => Promise<readonly { address: string; family: 4 | 6 }[]>;

export interface DialTarget {
  readonly address: string;
  readonly family: 4 | 6;
  /** The original hostname, for TLS SNI and certificate verification; '' when the host is an IP literal. */
  readonly servername: string;
}

export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'documentation'
  | 'reserved';

interface Cidr {
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

/** More specific ranges first: the metadata address sits inside link-local (v4) and private (v6) space. */
const RANGES: readonly (readonly [AddressClass, string])[] = [
  ['metadata', '169.254.169.254/32'],
  ['metadata', 'fd00:ec2::254/128'],
  ['loopback', '127.0.0.0/8'],
  ['loopback', '::1/128'],
  ['link-local', '169.254.0.0/16'],
  ['link-local', 'fe80::/10'],
  ['unspecified', '0.0.0.0/8'],
  ['unspecified', '::/128'],
  ['multicast', '224.0.0.0/4'],
  ['multicast', '255.255.255.255/32'],
  ['multicast', 'ff00::/8'],
  ['documentation', '192.0.2.0/24'],
  ['documentation', '198.51.100.0/24'],
  ['documentation', '203.0.113.0/24'],
  ['documentation', '2001:db8::/32'],
  ['reserved', '240.0.0.0/4'],
  ['reserved', '192.0.0.0/24'],
  ['reserved', '198.18.0.0/15'],
  ['reserved', '100::/64'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['private', '100.64.0.0/10'],
  ['private', 'fc00::/7'],
];

const CLASS_RANGES: readonly (readonly [AddressClass, Cidr])[] = RANGES.map(([cls, text]) => [cls, parseCidr(text)!]);

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.gcp.internal', 'metadata.azure.internal']);
const PRIVATE_SUFFIXES = ['.local', '.internal', '.cluster.local'];
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;
/** A last label of digits or 0x-hex makes resolvers read the name as an IPv4 number (`127.1`, `0x7f.1`, `2130706433`). */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/;

type ParsedHost =
  | { readonly kind: 'ip'; readonly bytes: Uint8Array; readonly address: string; readonly family: 4 | 6 }
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'invalid' };

/** Create / PATCH stage: the literal value only, no DNS. Throws hostNotAllowed() on a denied or unparseable host. */
export function checkHostLiteral(host: string, policy: HostSafetyPolicy): void {
  const parsed = parseHost(host);
  const allow = compileAllowlist(policy.allowlist);
  if (!literalAllowed(parsed, policy, allow)) throw hostNotAllowed();
}

/**
 * Dial stage: checks the literal, resolves a name once (every address must pass) and returns the
 * first address to connect to. `exempt` (internal datasources) skips the checks but still pins.
 * A DNS failure is a connect error, not a denial, so the guard is no oracle for name existence.
 */
export async function resolveDialTarget(
  host: string,
  policy: HostSafetyPolicy,
  options: { lookup?: LookupFn; signal?: AbortSignal; exempt?: boolean } = {},
): Promise<DialTarget> {
  const exempt = options.exempt === true;
  const parsed = parseHost(host);
  const allow = compileAllowlist(policy.allowlist);
  if (!exempt && !literalAllowed(parsed, policy, allow)) throw hostNotAllowed();
  if (parsed.kind === 'ip') return { address: parsed.address, family: parsed.family, servername: '' };
  if (parsed.kind === 'invalid') throw connectError(undefined, 'host_not_found'); // exempt, and still not a usable host
  const addresses = await lookupOnce(parsed.name, options.lookup ?? defaultLookup, options.signal);
  const nameAllowlisted = allow.names.has(parsed.name);
  if (!exempt && !nameAllowlisted) {
    for (const { address } of addresses) {
      const resolved = parseHost(address);
      if (resolved.kind !== 'ip' || !addressAllowed(resolved.bytes, policy, allow)) throw hostNotAllowed();
    }
  }
  const first = addresses[0];
  const firstParsed = parseHost(first.address);
  if (firstParsed.kind !== 'ip') throw connectError();
  return { address: firstParsed.address, family: firstParsed.family, servername: parsed.name };
}

/** The class of one IP address (IPv4-mapped IPv6 unmapped first); undefined for a non-IP. Exported for tests and diagnostics. */
export function classifyAddress(address: string): AddressClass | undefined {
  const parsed = parseHost(address);
  return parsed.kind === 'ip' ? classifyBytes(parsed.bytes) : undefined;
}

/** Allowlist entries that can never match (neither a hostname nor a CIDR/IP); config loaders refuse them at boot. */
export function invalidAllowlistEntries(allowlist: readonly string[]): string[] {
  return allowlist.filter((entry) => allowlistEntry(entry) === undefined);
}

function literalAllowed(parsed: ParsedHost, policy: HostSafetyPolicy, allow: CompiledAllowlist): boolean {
  switch (parsed.kind) {
    case 'invalid':
      return false; // fail closed
    case 'ip':
      return addressAllowed(parsed.bytes, policy, allow);
    case 'name':
      return allow.names.has(parsed.name) || classAllowed(classifyName(parsed.name), policy);
  }
}

function addressAllowed(bytes: Uint8Array, policy: HostSafetyPolicy, allow: CompiledAllowlist): boolean {
  const unmapped = unmapIpv4(bytes);
  if (allow.cidrs.some((cidr) => cidrContains(cidr, unmapped))) return true;
  return classAllowed(classifyBytes(unmapped), policy);
}

function classAllowed(cls: AddressClass, policy: HostSafetyPolicy): boolean {
  return cls === 'public' || (cls === 'private' && policy.allowPrivate);
}

function classifyName(name: string): AddressClass {
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  if (METADATA_NAMES.has(name)) return 'metadata';
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return 'private';
  return 'public';
}

function classifyBytes(bytes: Uint8Array): AddressClass {
  const unmapped = unmapIpv4(bytes);
  const embedded = embeddedIpv4(unmapped);
  if (embedded) return classifyBytes(embedded);
  for (const [cls, cidr] of CLASS_RANGES) if (cidrContains(cidr, unmapped)) return cls;
  return 'public';
}

/**
 * The IPv4 address an IPv6 form carries and delivers to, so that it is classed like that address:
 * IPv4-compatible `::a.b.c.d` (but not `::` and `::1`, which are their own classes), NAT64
 * `64:ff9b::/96` and the local-use `64:ff9b:1::/48`, 6to4 `2002:AABB:CCDD::/48`, and Teredo
 * `2001:0::/32`, whose client address is stored inverted in the last four bytes.
 */
function embeddedIpv4(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length !== 16) return undefined;
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const last4 = bytes.slice(12);
  if (zeros(0, 12) && !(zeros(12, 15) && bytes[15] <= 1)) return last4;
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    if (zeros(4, 12)) return last4;
    if (bytes[4] === 0x00 && bytes[5] === 0x01) return last4;
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x00 && bytes[3] === 0x00) return last4.map((b) => b ^ 0xff);
  return undefined;
}

// ---- allowlist -------------------------------------------------------------------------------

interface CompiledAllowlist {
  readonly names: ReadonlySet<string>;
  readonly cidrs: readonly Cidr[];
}

const compiledAllowlists = new WeakMap<readonly string[], CompiledAllowlist>();

function compileAllowlist(allowlist: readonly string[]): CompiledAllowlist {
  const cached = compiledAllowlists.get(allowlist);
  if (cached) return cached;
  const names = new Set<string>();
  const cidrs: Cidr[] = [];
  for (const raw of allowlist) {
    const entry = allowlistEntry(raw);
    if (entry === undefined) continue; // an entry that cannot be read never matches (fail closed)
    if (typeof entry === 'string') names.add(entry);
    else cidrs.push(entry);
  }
  const compiled = { names, cidrs };
  compiledAllowlists.set(allowlist, compiled);
  return compiled;
}

function allowlistEntry(raw: string): string | Cidr | undefined {
  const text = raw.trim();
  if (text.includes('/')) return parseCidr(text);
  const parsed = parseHost(text);
  if (parsed.kind === 'ip') {
    const bytes = unmapIpv4(parsed.bytes);
    return { bytes, prefix: bytes.length * 8 };
  }
  return parsed.kind === 'name' ? parsed.name : undefined;
}

// ---- parsing ---------------------------------------------------------------------------------

function parseHost(input: string): ParsedHost {
  if (typeof input !== 'string') return { kind: 'invalid' };
  let text = input;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.includes(':')) {
    const bytes = parseIpv6(text);
    return bytes ? { kind: 'ip', bytes, address: text, family: 6 } : { kind: 'invalid' };
  }
  const name = (text.endsWith('.') ? text.slice(0, -1) : text).toLowerCase();
  if (isIP(name) === 4) return { kind: 'ip', bytes: parseIpv4(name)!, address: name, family: 4 };
  if (!HOSTNAME.test(name) || NUMERIC_LAST_LABEL.test(name)) return { kind: 'invalid' };
  return { kind: 'name', name };
}

function parseIpv4(text: string): Uint8Array | undefined {
  if (isIP(text) !== 4) return undefined;
  return Uint8Array.from(text.split('.').map(Number));
}

function parseIpv6(input: string): Uint8Array | undefined {
  if (isIP(input) !== 6) return undefined;
  const text = input.split('%')[0]; // a zone id (fe80::1%eth0) does not change the address class
  const bytes = new Uint8Array(16);
  const [head, tail, extra] = text.split('::');
  if (extra !== undefined) return undefined;
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const words: number[] = [];
  const toWords = (groups: string[]): number[] | undefined => {
    const out: number[] = [];
    for (const [i, group] of groups.entries()) {
      if (group.includes('.')) {
        const v4 = i === groups.length - 1 ? parseIpv4(group) : undefined;
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        out.push(parseInt(group, 16));
      }
    }
    return out;
  };
  const headWords = toWords(headGroups);
  const tailWords = toWords(tailGroups);
  if (!headWords || !tailWords) return undefined;
  const gap = 8 - headWords.length - tailWords.length;
  if (gap < 0 || (tail === undefined && gap !== 0)) return undefined;
  words.push(...headWords, ...new Array<number>(tail === undefined ? 0 : gap).fill(0), ...tailWords);
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return undefined;
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addressText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const bytes = addressText.includes(':') ? parseIpv6(addressText) : parseIpv4(addressText);
  if (!bytes) return undefined;
  const prefix = Number(prefixText);
  if (prefix > bytes.length * 8) return undefined;
  // A v4-mapped v6 range (::ffff:10.0.0.0/104) is the v4 range it maps, since addresses are unmapped before matching.
  if (bytes.length === 16 && isIpv4Mapped(bytes) && prefix >= 96) return { bytes: bytes.slice(12), prefix: prefix - 96 };
  return { bytes, prefix };
}

function isIpv4Mapped(bytes: Uint8Array): boolean {
  if (bytes.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

function unmapIpv4(bytes: Uint8Array): Uint8Array {
  return isIpv4Mapped(bytes) ? bytes.slice(12) : bytes;
}

function cidrContains(cidr: Cidr, bytes: Uint8Array): boolean {
  if (cidr.bytes.length !== bytes.length) return false;
  const full = cidr.prefix >> 3;
  for (let i = 0; i < full; i++) if (cidr.bytes[i] !== bytes[i]) return false;
  const rest = cidr.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (cidr.bytes[full] & mask) === (bytes[full] & mask);
}

// ---- resolution ------------------------------------------------------------------------------

async function defaultLookup(hostname: string): Promise<readonly { address: string; family: 4 | 6 }[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

async function lookupOnce(
  name: string,
  lookup: LookupFn,
  signal: AbortSignal | undefined,
): Promise<readonly { address: string; family: 4 | 6 }[]> {
  let addresses: readonly { address: string; family: 4 | 6 }[];
  try {
    addresses = await abortable(lookup(name), signal);
  } catch (error) {
    // abortable() already gave a connect error; a lookup's own failure becomes one here.
    throw error instanceof EngineError ? error : connectError(error, connectReason(error));
  }
  // A custom lookup is host code: an empty or malformed answer is a failed dial, not a pass.
  if (!Array.isArray(addresses) || addresses.length === 0) throw connectError(undefined, 'host_not_found');
  return addresses as readonly { address: string; family: 4 | 6 }[];
}

/** DNS lookups cannot be cancelled; on abort we stop waiting for one (it finishes in the background). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(connectError(signal.reason, 'timeout'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(connectError(error, connectReason(error)));
      },
    );
  });
}
