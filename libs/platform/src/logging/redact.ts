/** What replaces a secret in logs and error text. */
export const REDACTED = '[REDACTED]';

// `scheme://user:pass@host` and `scheme://user@host`: the userinfo of any URL or DSN. The scheme
// is bounded: unbounded, every start position in a long run of letters scanned to its end, and a
// multi-megabyte message took minutes.
const URL_USERINFO = /([a-z][a-z0-9+.-]{0,31}:\/\/)[^@/\s?#]+@/gi;
// `password=…`, `pwd: …`, `"secret":"…"` and the like, in DSNs, query strings and JSON text.
const SECRET_ASSIGNMENT = /\b(password|passwd|pwd|secret|secret_?key|client_?secret|api_?key|access_?token|refresh_?token|token)("?\s*[=:]\s*"?)("[^"]*"|'[^']*'|[^\s;&,"'}]+)/gi;
const BEARER = /\b(bearer|basic)\s+[a-z0-9._~+/=-]+/gi;
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g;

/** Replaces the userinfo of every URL (`scheme://[REDACTED]@host`). What both apps' startup errors need. */
export function redactUrls(text: string): string {
  return text.replace(URL_USERINFO, `$1${REDACTED}@`);
}

/**
 * Masks secrets in free text: URL userinfo, `password=`-style assignments, bearer tokens, PEM blocks,
 * and every literal in `extraSecrets` (for example the decrypted password a connector was given).
 */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  // Literals first, longest first, so a secret that contains another is masked whole.
  for (const secret of [...extraSecrets].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
  }
  return redactUrls(out)
    .replace(PEM_BLOCK, REDACTED)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(SECRET_ASSIGNMENT, `$1$2${REDACTED}`);
}

// Keys whose values are secret wherever they appear.
const SECRET_KEY = /^(password|passwd|pwd|secret|secret_?key|client_?secret|api_?key|access_?token|refresh_?token|token|authorization|cookie|set-cookie|x-api-key|app_enc_key(_previous)?|.*_encrypted|dsn)$/i;
// Keys that are secret only inside TLS/SSL blocks (`ssl.ca`, `ssl.cert`, `ssl.key`).
const TLS_PARENT = /^(ssl|tls)$/i;
const TLS_SECRET_KEY = /^(ca|cert|key|passphrase)$/i;

/** Longest string a log line keeps, after redaction; longer ones end in a marker. */
export const MAX_LOGGED_TEXT = 4096;
/** Members kept per logged object or array; the rest are counted, not printed. */
const MAX_MEMBERS = 50;
const MAX_DEPTH = 8;

/**
 * Redacts, then shortens: cut first, and a URL cut before its `@` would keep half its password.
 * The cut goes back to a whitespace so that no partial token is printed.
 */
export function clipText(text: string, extraSecrets: readonly string[] = []): string {
  // Bounded before the pattern pass as well, so a huge text costs linear time at most.
  const bounded = text.length > 16 * MAX_LOGGED_TEXT ? text.slice(0, 16 * MAX_LOGGED_TEXT) : text;
  const clean = redactSecrets(bounded, extraSecrets);
  if (clean.length <= MAX_LOGGED_TEXT && bounded === text) return clean;
  const head = clean.slice(0, MAX_LOGGED_TEXT);
  const cut = head.search(/\s\S*$/);
  return `${cut > 0 ? head.slice(0, cut) : ''} [truncated]`;
}

/** A member read that never throws: getters and proxy traps may. */
export function readMember(value: object, key: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: (value as Record<string, unknown>)[key] };
  } catch {
    return { ok: false };
  }
}

/**
 * A copy of a log object with secret keys replaced at any depth and every string passed through
 * `redactSecrets`. Buffers (key material) are never printed. It never throws, whatever it is given
 * (getters and proxies that throw, cycles, huge or deep values): a log call that throws loses the
 * line and fails whatever was logging, such as the HTTP error filter.
 */
export function redactObject(value: unknown, parentKey = '', depth = 0, seen = new WeakSet<object>()): unknown {
  try {
    return redactValue(value, parentKey, depth, seen);
  } catch {
    return '[unreadable]';
  }
}

function redactValue(value: unknown, parentKey: string, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return clipText(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return `[${typeof value}]`;
  if (value === null || typeof value !== 'object') return value;
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return REDACTED;
  if (seen.has(value) || depth > MAX_DEPTH) return '[Circular or too deep]';
  seen.add(value);
  if (value instanceof Error) return describeError(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '[Invalid Date]' : value;
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_MEMBERS).map((item) => redactObject(item, parentKey, depth + 1, seen));
    return value.length > MAX_MEMBERS ? [...items, `[${value.length - MAX_MEMBERS} more]`] : items;
  }
  const keys = Object.keys(value);
  const out: Record<string, unknown> = {};
  for (const key of keys.slice(0, MAX_MEMBERS)) {
    const member = readMember(value, key);
    if (!member.ok) {
      put(out, key, '[unreadable]');
      continue;
    }
    const secret = SECRET_KEY.test(key) || (TLS_PARENT.test(parentKey) && TLS_SECRET_KEY.test(key));
    const present = member.value !== undefined && member.value !== null && member.value !== '';
    put(out, key, secret && present ? REDACTED : redactObject(member.value, key, depth + 1, seen));
  }
  if (keys.length > MAX_MEMBERS) out['[more keys]'] = keys.length - MAX_MEMBERS;
  return out;
}

/**
 * An error as logs show it: its type (`name`, or a `type` field of an error already described),
 * its `category` when it has one, and its message, redacted and bounded. Nothing else: stacks and
 * driver fields may quote values and DSNs. Never throws.
 */
export function describeError(value: unknown): Record<string, unknown> {
  try {
    if (value === null || value === undefined) return { type: String(value) };
    if (typeof value !== 'object') {
      return typeof value === 'string' ? { type: 'string', message: clipText(value) } : { type: typeof value };
    }
    const text = (key: string): string | undefined => {
      const member = readMember(value, key);
      return member.ok && typeof member.value === 'string' ? member.value : undefined;
    };
    const type = text('name') ?? text('type') ?? (value instanceof Error ? 'Error' : 'object');
    const category = text('category');
    const message = text('message');
    return {
      type: clipText(type).slice(0, 200),
      ...(category !== undefined ? { category: clipText(category).slice(0, 200) } : {}),
      ...(message !== undefined ? { message: clipText(message) } : {}),
    };
  } catch {
    return { type: 'unreadable' };
  }
}

/** An own property even for `__proto__`, which plain assignment would turn into a prototype change. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
