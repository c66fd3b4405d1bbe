import { createHmac, randomBytes } from 'node:crypto';
import { sealEnvelope } from '../crypto/aead-envelope';
import { deriveSubKeys } from '../crypto/sub-keys';

/** A stored result as the Worker writes it: base64(nonce || AES-256-GCM ciphertext || tag), plus its HMAC. */
export function storedResult(master: Buffer, plaintext: string | Buffer): { object: string; hmac: string } {
  const keys = deriveSubKeys(master);
  return {
    object: sealEnvelope(keys.storage, plaintext),
    hmac: createHmac('sha256', keys.externalHmac).update(plaintext).digest('hex'),
  };
}

export const aMasterKey = (): Buffer => randomBytes(32);
