import { isIP } from 'node:net';
import { z } from 'zod';

/** `true/false/1/0/t/f` in any letter case, as the original's Go parser accepted. */
export function envBool(defaultValue = false) {
  return z
    .stringbool({ truthy: ['true', '1', 't'], falsy: ['false', '0', 'f'], case: 'insensitive', error: 'must be true, false, 1, 0, t or f' })
    .default(defaultValue);
}

export interface EnvIntOptions {
  readonly min?: number;
  readonly max?: number;
  readonly default?: number;
}

/** A decimal integer within bounds. Without `default`, the variable is required. */
export function envInt(options: EnvIntOptions = {}) {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = options;
  const base = z
    .string()
    .regex(/^[+-]?\d{1,15}$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(z.number().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }));
  return options.default === undefined ? base : base.default(options.default);
}

export interface EnvUrlOptions {
  /** Accepted schemes without the colon, e.g. `['http', 'https']`. */
  readonly protocols: readonly string[];
  /** Endpoints take credentials from their own variables; `user:pass@` in a URL would end up in logs. */
  readonly allowUserinfo?: boolean;
}

/** An absolute URL with a host and one of the schemes. Required unless followed by `.optional()`. */
export function envUrl(options: EnvUrlOptions) {
  return z.string().superRefine((text, ctx) => {
    const problem = urlProblem(text, options);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

const HOSTLESS = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?::\d*)?(?:[/?#]|$)/i;

/** Why a URL is refused, or undefined. The reason never quotes the URL. */
export function urlProblem(text: string, options: EnvUrlOptions): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // WHATWG parsing throws for "https://:27401"; say what is missing rather than just "invalid".
    return HOSTLESS.test(text) ? 'must name a host' : 'must be an absolute URL';
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!options.protocols.includes(scheme)) return `must use ${options.protocols.join(' or ')}`;
  // Non-special schemes ("mongodb:///x") parse with an empty host: nothing to dial either.
  if (url.hostname === '') return 'must name a host';
  if (!options.allowUserinfo && (url.username !== '' || url.password !== '')) return 'must not contain user credentials; use the dedicated variables';
  return undefined;
}

/** A comma-separated list; blank entries are dropped. */
export function envList() {
  return z.string().transform((text) => text.split(',').map((s) => s.trim()).filter((s) => s !== ''));
}

const HOSTNAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?$/i;

/** Whether a host-safety allowlist entry is a hostname, an IP address or a CIDR block. */
export function isAllowlistEntry(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash < 0) return isIP(entry.replace(/^\[(.*)\]$/, '$1')) !== 0 || HOSTNAME.test(entry);
  const address = entry.slice(0, slash);
  const bits = entry.slice(slash + 1);
  const family = isIP(address);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** `HOST_SAFETY_ALLOWLIST`: comma-separated hostnames, IPs or CIDRs; bad entries are named by position. */
export function envHostAllowlist() {
  return envList().superRefine((entries, ctx) => {
    entries.forEach((entry, index) => {
      if (!isAllowlistEntry(entry)) ctx.addIssue({ code: 'custom', message: `entry ${index + 1} is neither a hostname nor a CIDR` });
    });
  });
}
