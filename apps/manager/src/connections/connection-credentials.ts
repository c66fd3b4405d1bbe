import type { ConnectionSecrets } from '@fetcher/engine';
import type { KeyRing } from '@fetcher/platform';
import type { StoredConnection, StoredSsl } from '../ports/connection-repository.port';

/** A connection's secrets could not be decrypted (unknown key version, damaged ciphertext). */
export class CredentialsUnreadableError extends Error {
  constructor() {
    super('connection credentials cannot be decrypted');
    this.name = 'CredentialsUnreadableError';
  }
}

export interface PlainSsl {
  readonly mode: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/**
 * Encrypts and decrypts a connection's password and SSL material with the key ring: the current
 * key on every write, the key named by the record's version label on every read. Plaintext SSL
 * material written by the original service is read as is.
 */
export class ConnectionCredentials {
  constructor(private readonly ring: KeyRing) {}

  get currentVersion(): string {
    return this.ring.currentVersion;
  }

  sealPassword(password: string): { ciphertext: string; keyVersion: string } {
    return this.ring.encryptCredential(password);
  }

  sealSsl(ssl: PlainSsl): StoredSsl {
    const seal = (pem: string | undefined) => (pem ? this.ring.encryptCredential(pem).ciphertext : undefined);
    const ca = seal(ssl.ca);
    const cert = seal(ssl.cert);
    const key = seal(ssl.key);
    return { mode: ssl.mode, ...(ca ? { caEncrypted: ca } : {}), ...(cert ? { certEncrypted: cert } : {}), ...(key ? { keyEncrypted: key } : {}) };
  }

  /** Throws CredentialsUnreadableError; the key ring's own error never travels further. */
  open(stored: StoredConnection): { password: string; ssl?: PlainSsl } {
    try {
      const open = (ciphertext: string | undefined, legacy: string | undefined) =>
        ciphertext ? this.ring.decryptCredential(ciphertext, stored.keyVersion) : legacy;
      const password = stored.passwordEncrypted ? this.ring.decryptCredential(stored.passwordEncrypted, stored.keyVersion) : '';
      if (!stored.ssl) return { password };
      const ca = open(stored.ssl.caEncrypted, stored.ssl.legacyCa);
      const cert = open(stored.ssl.certEncrypted, stored.ssl.legacyCert);
      const key = open(stored.ssl.keyEncrypted, stored.ssl.legacyKey);
      return { password, ssl: { mode: stored.ssl.mode, ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) } };
    } catch {
      throw new CredentialsUnreadableError();
    }
  }

  /** The decrypted secrets in the engine's shape. */
  secretsOf(stored: StoredConnection): ConnectionSecrets {
    const { password, ssl } = this.open(stored);
    const material = ssl ? { ...(ssl.ca ? { ca: ssl.ca } : {}), ...(ssl.cert ? { cert: ssl.cert } : {}), ...(ssl.key ? { key: ssl.key } : {}) } : undefined;
    return { ...(password ? { password } : {}), ...(material && Object.keys(material).length > 0 ? { ssl: material } : {}) };
  }

  /**
   * The record re-encrypted under the current key when it carries an older version or plaintext
   * legacy material; otherwise the record itself.
   */
  upgrade(stored: StoredConnection): StoredConnection {
    const legacy = stored.ssl && (stored.ssl.legacyCa || stored.ssl.legacyCert || stored.ssl.legacyKey);
    if (stored.keyVersion === this.ring.currentVersion && !legacy) return stored;
    const { password, ssl } = this.open(stored);
    const sealed = this.sealPassword(password);
    return { ...stored, passwordEncrypted: sealed.ciphertext, keyVersion: sealed.keyVersion, ...(ssl ? { ssl: this.sealSsl(ssl) } : {}) };
  }
}
