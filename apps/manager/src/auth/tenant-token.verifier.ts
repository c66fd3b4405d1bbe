import { createPublicKey, type KeyObject } from 'node:crypto';
import type { TenantTokenSettings } from '@fetcher/contracts';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { Errors } from '../errors/catalogue';
import { bearerToken } from './subject';

/** The tenant id format: it becomes part of database names, vhosts and key prefixes. */
const TENANT_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
const TENANT_ID_MAX = 256;

/** Clocks of the token issuer and this service may disagree by this much. */
export const CLOCK_TOLERANCE_SEC = 60;

/**
 * A client sends the same token with every request for its lifetime, and a signature check costs far
 * more than the rest of the guard. A token verified once is remembered by its exact text for at most
 * this long (its `exp` still applies on every use), so a key withdrawn from the key set stops
 * working within the same bound as the key set's own refresh.
 */
const REMEMBER_MS = 60_000;
const REMEMBER_MAX = 10_000;

export interface TenantTokenVerifierOptions {
  /**
   * The least time between two key-set downloads. An unknown `kid` refreshes the set once; within
   * this window it is simply refused, so a flood of forged `kid`s cannot turn into a flood of fetches.
   */
  readonly jwksCooldownMs?: number;
  /** How long a downloaded key set is used before it is fetched again on the next request. */
  readonly jwksMaxAgeMs?: number;
  readonly jwksTimeoutMs?: number;
}

/**
 * Decides whose request it is in multi-tenant mode. The checks run in the contract's order: the
 * claim-shape checks first (so clients see the same codes as before verification existed), then the
 * signature, algorithm and time checks. The tenant id is returned only from a verified token.
 */
export class TenantTokenVerifier {
  readonly #key: KeyObject | JWTVerifyGetKey;
  readonly #settings: TenantTokenSettings;
  /** Verified tokens by their text, oldest first. */
  readonly #verified = new Map<string, { readonly tenantId: string; readonly exp: number; readonly until: number }>();

  constructor(settings: TenantTokenSettings, options: TenantTokenVerifierOptions = {}) {
    this.#settings = settings;
    if (settings.jwksUrl) {
      this.#key = keysFrom(createRemoteJWKSet(new URL(settings.jwksUrl), {
        cooldownDuration: options.jwksCooldownMs ?? 30_000,
        cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
        timeoutDuration: options.jwksTimeoutMs ?? 5_000,
      }));
    } else if (settings.publicKeyPem) {
      this.#key = createPublicKey(settings.publicKeyPem);
    } else {
      // The configuration refuses this; a verifier without a key would accept nothing anyway.
      throw new Error('tenant token verifier: no key source');
    }
  }

  /** The verified tenant id, or an AppError with the contract's E6 code. */
  async verify(authorization: string | undefined): Promise<string> {
    const bearer = bearerToken(authorization);
    if (bearer.kind !== 'token') throw Errors.missingToken();
    const token = bearer.token;
    const remembered = this.#remembered(token);
    if (remembered !== undefined) return remembered;
    const claims = shapeOf(token);
    if (claims.tenantId === undefined || claims.tenantId === null || claims.tenantId === '') throw Errors.missingTenant();
    if (!isTenantId(claims.tenantId)) throw Errors.invalidTenant();

    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#key as JWTVerifyGetKey, {
        algorithms: [...this.#settings.algorithms],
        clockTolerance: CLOCK_TOLERANCE_SEC,
        requiredClaims: ['exp'],
        ...(this.#settings.issuer ? { issuer: this.#settings.issuer } : {}),
        ...(this.#settings.audience ? { audience: [...this.#settings.audience] } : {}),
      }));
    } catch (error) {
      if (error instanceof KeysUnavailable) throw Errors.tokenKeysUnavailable();
      throw Errors.invalidToken();
    }
    // The same bytes were checked above; re-read from the verified payload so nothing unverified is used.
    const tenantId = payload.tenantId;
    if (!isTenantId(tenantId)) throw Errors.invalidTenant();
    this.#remember(token, tenantId, payload.exp as number);
    return tenantId;
  }

  /** The tenant of a token verified within REMEMBER_MS that has not expired since (same leeway as jose). */
  #remembered(token: string): string | undefined {
    const entry = this.#verified.get(token);
    if (entry === undefined) return undefined;
    const now = Date.now();
    if (now < entry.until && Math.floor(now / 1000) < entry.exp + CLOCK_TOLERANCE_SEC) return entry.tenantId;
    this.#verified.delete(token);
    return undefined;
  }

  #remember(token: string, tenantId: string, exp: number): void {
    if (this.#verified.size >= REMEMBER_MAX) {
      const oldest = this.#verified.keys().next();
      if (!oldest.done) this.#verified.delete(oldest.value);
    }
    this.#verified.set(token, { tenantId, exp, until: Date.now() + REMEMBER_MS });
  }
}

function isTenantId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= TENANT_ID_MAX && TENANT_ID.test(value);
}

/** Three base64url parts with a JSON header and JSON claims; anything else is INVALID_TOKEN. */
function shapeOf(token: string): Record<string, unknown> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) throw Errors.invalidToken();
  try {
    decodeProtectedHeader(token);
    return decodeJwt(token);
  } catch {
    throw Errors.invalidToken();
  }
}

/** A key set that could not be fetched or read: the caller's token may be fine. */
class KeysUnavailable extends Error {}

/**
 * The remote key set, with its failures split: a `kid` that is not in the set (even after the one
 * refresh it triggers) is the token's problem; a set that cannot be fetched or parsed is ours.
 */
function keysFrom(remote: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw new KeysUnavailable();
    }
  };
}
