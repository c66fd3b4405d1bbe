import { createHmac, type KeyObject } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';

/** One signing key of a test token issuer, with its public half as a JWK and as a PEM. */
export interface TestSigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: KeyObject;
  readonly jwk: JWK;
  readonly publicPem: string;
}

export async function aSigningKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<TestSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey: privateKey as KeyObject, jwk, publicPem: await exportSPKI(publicKey) };
}

export interface TokenOptions {
  readonly claims?: Record<string, unknown>;
  /** Seconds from now; default one hour; null: no `exp` claim. */
  readonly expiresIn?: number | null;
  readonly notBefore?: number;
  readonly issuer?: string;
  readonly audience?: string;
  readonly kid?: string;
}

/** A signed tenant token: `tenantId` plus whatever the test adds or overrides. */
export async function aTenantToken(key: TestSigningKey, tenantId: string | undefined, options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ ...(tenantId === undefined ? {} : { tenantId }), ...options.claims })
    .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'JWT' })
    .setIssuedAt(now);
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 3600));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  if (options.issuer) jwt.setIssuer(options.issuer);
  if (options.audience) jwt.setAudience(options.audience);
  return jwt.sign(key.privateKey);
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Header and claims with the given signature part, as a forger would assemble them. */
export function aHandMadeToken(header: Record<string, unknown>, claims: Record<string, unknown>, signature = ''): string {
  return `${part(header)}.${part(claims)}.${signature}`;
}

/** The classic key-confusion forgery: HS256 with the verifier's public key as the HMAC secret. */
export function anHmacForgery(publicPem: string, kid: string, claims: Record<string, unknown>): string {
  const signingInput = `${part({ alg: 'HS256', kid, typ: 'JWT' })}.${part(claims)}`;
  return `${signingInput}.${createHmac('sha256', publicPem).update(signingInput).digest('base64url')}`;
}
