import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KeyRingError } from './key-ring-error';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM with a random 12-byte nonce and no AAD, stored as base64(nonce || ciphertext || tag). */
export function sealEnvelope(key: Buffer, plaintext: Buffer | string): string {
  assertKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** Opens an envelope made by `sealEnvelope`; throws `KeyRingError` when it is malformed or was tampered with. */
export function openEnvelope(key: Buffer, envelope: string): Buffer {
  assertKey(key);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(envelope)) throw new KeyRingError('malformed_envelope', 'malformed envelope: not base64');
  const raw = Buffer.from(envelope, 'base64');
  if (raw.length < NONCE_BYTES + TAG_BYTES) throw new KeyRingError('malformed_envelope', 'malformed envelope: too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
  } catch {
    // GCM's tag check failed: wrong key or altered bytes. OpenSSL's text adds nothing useful.
    throw new KeyRingError('decryption_failed', 'decryption failed: wrong key or altered envelope');
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== 32) throw new KeyRingError('invalid_key', 'AES-256-GCM needs a 32-byte key');
}
