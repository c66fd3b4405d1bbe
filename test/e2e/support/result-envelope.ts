import { createDecipheriv, createHmac, hkdfSync } from 'node:crypto';

/**
 * Reads a stored result with nothing but the master key, independently of the platform code:
 * HKDF-SHA256 sub-keys (empty salt, 32 bytes), then `nonce(12) | ciphertext | tag(16)` under
 * AES-256-GCM with the storage key, and the document's HMAC-SHA256 under the external key.
 */
export function subKeyOf(masterKey: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
}

/** Decrypts the base64 text storage holds and computes the HMAC a job reports as `resultHmac`. */
export function openResult(masterKey: Buffer, storedText: string): { plaintext: Buffer; hmac: string } {
  const raw = Buffer.from(storedText, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', subKeyOf(masterKey, 'fetcher-storage-encryption-v1'), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  const plaintext = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
  return { plaintext, hmac: createHmac('sha256', subKeyOf(masterKey, 'fetcher-external-hmac-v1')).update(plaintext).digest('hex') };
}
