export type BearerToken = { kind: 'token'; token: string } | { kind: 'missing' } | { kind: 'other-scheme' };

/**
 * The token from an Authorization header: `Bearer <jwt>` in any letter case, or a bare token (one
 * word). Any other scheme (`Basic <jwt>`, `Token x`) is not a bearer token: it is refused, never
 * forwarded to the authorization service as if it were one.
 */
export function bearerToken(header: string | undefined): BearerToken {
  const value = (header ?? '').trim();
  if (value === '') return { kind: 'missing' };
  const match = /^bearer(?:\s+(.*))?$/i.exec(value);
  if (!match && /\s/.test(value)) return { kind: 'other-scheme' };
  const token = match ? (match[1] ?? '').trim() : value;
  return token === '' ? { kind: 'missing' } : { kind: 'token', token };
}

export type SubjectResult = { ok: true; subject: string } | { ok: false };

/** Users of type `normal-user` act as themselves within their owner; every other token acts as the editor role. */
export const EDITOR_SUBJECT = 'admin/fetcher-editor-role';

/**
 * The subject to authorize, from the JWT's claims. The signature is NOT checked here: the
 * authorization service receives the same token and decides; the claims only name whom to ask about.
 */
export function subjectFromToken(token: string): SubjectResult {
  const claims = decodeClaims(token);
  if (!claims) return { ok: false };
  if (claims.type !== 'normal-user') return { ok: true, subject: EDITOR_SUBJECT };
  const owner = claims.owner;
  if (typeof owner !== 'string' || owner === '') return { ok: false };
  const sub = typeof claims.sub === 'string' ? claims.sub : '';
  return { ok: true, subject: `${owner}/${sub}` };
}

function decodeClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+={0,2}$/.test(parts[1] ?? '')) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
