/** Why a key or envelope operation failed; callers branch on `reason`, never on the message. */
export type KeyRingErrorReason = 'invalid_key' | 'duplicate_version' | 'unsupported_key_version' | 'malformed_envelope' | 'decryption_failed';

/** A key-ring or envelope failure. The message never contains key material or plaintext. */
export class KeyRingError extends Error {
  constructor(readonly reason: KeyRingErrorReason, message: string) {
    super(message);
    this.name = 'KeyRingError';
  }
}
