import type { CredentialProtector, ProtectedCredential, TenantContext } from '@fetcher/engine';
import type { KeyRing } from '@fetcher/platform';

/**
 * The engine's credential port over the key ring. The engine numbers key versions; the ring labels
 * them, so only numeric labels cross (the Manager's own writes keep the label as stored text).
 */
export class KeyRingCredentialProtector implements CredentialProtector {
  constructor(private readonly ring: KeyRing) {}

  protect(_tenant: TenantContext, plaintext: string): Promise<ProtectedCredential> {
    const sealed = this.ring.encryptCredential(plaintext);
    const version = Number(sealed.keyVersion);
    return Promise.resolve({ ciphertext: sealed.ciphertext, keyVersion: Number.isSafeInteger(version) && version >= 0 ? version : 0 });
  }

  reveal(_tenant: TenantContext, ciphertext: string, keyVersion: number): Promise<string> {
    return Promise.resolve().then(() => this.ring.decryptCredential(ciphertext, String(keyVersion)));
  }
}
