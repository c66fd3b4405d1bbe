/** What replaces a secret in logs and error text. */
export const REDACTED = '[REDACTED]';

// `scheme://user:pass@host` and `scheme://user@host`: the userinfo of any URL or DSN.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^@/\s?#]+@/gi;
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

/**
 * A copy of a log object with secret keys replaced at any depth and every string passed through
 * `redactSecrets`. Buffers (key material) are never printed. Cycles and depth are bounded.
 */
export function redactObject(value: unknown, parentKey = '', depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return REDACTED;
  if (seen.has(value) || depth > 8) return '[Circular or too deep]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactObject(item, parentKey, depth + 1, seen));
  if (value instanceof Error) return { type: value.name, message: redactSecrets(value.message) };
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const secret = SECRET_KEY.test(key) || (TLS_PARENT.test(parentKey) && TLS_SECRET_KEY.test(key));
    out[key] = secret && member !== undefined && member !== null && member !== '' ? REDACTED : redactObject(member, key, depth + 1, seen);
  }
  return out;
}
