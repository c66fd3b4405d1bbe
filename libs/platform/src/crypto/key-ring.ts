import { inspect } from 'node:util';
import { openEnvelope, sealEnvelope } from './aead-envelope';
import { KeyRingError } from './key-ring-error';
import { deriveSubKeys, MIN_MASTER_KEY_BYTES, type SubKeys } from './sub-keys';

export interface VersionedKey {
  readonly version: string;
  readonly key: Buffer;
}

export interface KeyRingOptions {
  readonly current: VersionedKey;
  readonly previous?: readonly VersionedKey[];
}

/**
 * The current master key plus the previous ones still needed during a rotation, each with its
 * version label. New data always uses the current key; stored data names the version it was written
 * with, so it stays readable while the old key is still on the ring.
 */
export class KeyRing {
  readonly currentVersion: string;
  readonly #byVersion: ReadonlyMap<string, SubKeys>;

  private constructor(currentVersion: string, byVersion: Map<string, SubKeys>) {
    this.currentVersion = currentVersion;
    this.#byVersion = byVersion;
  }

  /** Throws `KeyRingError` for a key shorter than 32 bytes, an empty version or a repeated version. */
  static create(options: KeyRingOptions): KeyRing {
    const byVersion = new Map<string, SubKeys>();
    for (const { version, key } of [options.current, ...(options.previous ?? [])]) {
      if (version.trim() === '') throw new KeyRingError('invalid_key', 'key version must not be empty');
      if (key.length < MIN_MASTER_KEY_BYTES) throw new KeyRingError('invalid_key', `key version ${version} is shorter than ${MIN_MASTER_KEY_BYTES} bytes`);
      if (byVersion.has(version)) throw new KeyRingError('duplicate_version', `key version ${version} appears twice`);
      byVersion.set(version, deriveSubKeys(key));
    }
    return new KeyRing(options.current.version, byVersion);
  }

  current(): SubKeys {
    return this.#byVersion.get(this.currentVersion)!;
  }

  forVersion(version: string): SubKeys | undefined {
    return this.#byVersion.get(version);
  }

  /** Every key set, current first: the order in which signatures are tried. */
  all(): SubKeys[] {
    return [...this.#byVersion.values()];
  }

  versions(): string[] {
    return [...this.#byVersion.keys()];
  }

  encryptCredential(plaintext: string): { ciphertext: string; keyVersion: string } {
    return { ciphertext: sealEnvelope(this.current().credentials, plaintext), keyVersion: this.currentVersion };
  }

  /** Throws `KeyRingError` (`unsupported_key_version`, `malformed_envelope`, `decryption_failed`). */
  decryptCredential(ciphertext: string, keyVersion: string): string {
    const keys = this.forVersion(keyVersion);
    if (!keys) throw new KeyRingError('unsupported_key_version', 'unsupported key version');
    return openEnvelope(keys.credentials, ciphertext).toString('utf8');
  }

  toJSON(): string {
    return '[KeyRing]';
  }

  [inspect.custom](): string {
    return `KeyRing { currentVersion: '${this.currentVersion}', versions: ${this.#byVersion.size} }`;
  }
}
