import { hkdfSync } from 'node:crypto';
import { inspect } from 'node:util';

/** The four purpose-bound keys derived from one master key; each is 32 bytes. */
export interface SubKeys {
  /** Encrypts stored datasource credentials (Manager and Worker). */
  readonly credentials: Buffer;
  /** Signs job messages from the Manager to the Worker. */
  readonly internalHmac: Buffer;
  /** Signs results and job events that leave the system. */
  readonly externalHmac: Buffer;
  /** Encrypts stored extraction results. */
  readonly storage: Buffer;
}

/** HKDF info labels. They are part of the wire contract: result consumers derive the same keys. */
export const SUB_KEY_INFO = Object.freeze({
  credentials: 'fetcher-credentials-v1',
  internalHmac: 'fetcher-internal-hmac-v1',
  externalHmac: 'fetcher-external-hmac-v1',
  storage: 'fetcher-storage-encryption-v1',
});

/** Master keys shorter than this are refused: HKDF cannot add entropy that the input lacks. */
export const MIN_MASTER_KEY_BYTES = 32;

/** HKDF-SHA256 with an empty salt, 32 bytes per sub-key. The result never prints its bytes. */
export function deriveSubKeys(master: Buffer): SubKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
  return hideKeyMaterial({
    credentials: derive(SUB_KEY_INFO.credentials),
    internalHmac: derive(SUB_KEY_INFO.internalHmac),
    externalHmac: derive(SUB_KEY_INFO.externalHmac),
    storage: derive(SUB_KEY_INFO.storage),
  });
}

/** Makes an object holding keys render as `[REDACTED]` in logs, JSON and `util.inspect`. */
export function hideKeyMaterial<T extends object>(value: T): Readonly<T> {
  // Non-enumerable, so structural equality in tests and object spreads are unaffected.
  Object.defineProperty(value, 'toJSON', { value: () => '[REDACTED]', enumerable: false });
  Object.defineProperty(value, inspect.custom, { value: () => '[REDACTED]', enumerable: false });
  return Object.freeze(value);
}
