/**
 * Decrypted credentials on a descriptor. They ride as a non-enumerable property holding a frozen,
 * checked copy whose JSON and `util.inspect` renderings are `[REDACTED]`, so a descriptor (or the
 * secrets themselves) can be logged, spread or serialised without printing a password or a key.
 */
import type { ConnectionDescriptor, ConnectionSecrets, ConnectionSslSecrets } from '../models';
import { isObjectLike } from '../support/guards';

const REDACTED = '[REDACTED]';
const inspectCustom = Symbol.for('nodejs.util.inspect.custom');
const SSL_KEYS = ['ca', 'cert', 'key'] as const;

/** A sealed copy of `value`, `undefined` when absent (`null`/`undefined`), `false` when malformed. */
export function readSecrets(value: unknown): ConnectionSecrets | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (!isObjectLike(value)) return false;
  const copy: { password?: string; ssl?: ConnectionSslSecrets } = {};
  const { password, ssl } = value;
  if (password !== undefined && password !== null) {
    if (typeof password !== 'string') return false;
    copy.password = password;
  }
  if (ssl !== undefined && ssl !== null) {
    if (!isObjectLike(ssl)) return false;
    const material: Record<string, string> = {};
    for (const key of SSL_KEYS) {
      const pem = ssl[key];
      if (pem === undefined || pem === null) continue;
      if (typeof pem !== 'string') return false;
      material[key] = pem;
    }
    copy.ssl = redacted(material);
  }
  return redacted(copy);
}

/**
 * A copy of `descriptor` carrying `secrets` (checked, sealed, non-enumerable). This is how a host
 * gives its connectors decrypted credentials; `undefined` secrets remove them.
 */
export function withConnectionSecrets(descriptor: ConnectionDescriptor, secrets: ConnectionSecrets | undefined): ConnectionDescriptor {
  const sealed = readSecrets(secrets);
  if (sealed === false) throw new TypeError('connection secrets are malformed');
  const copy = { ...descriptor };
  if (descriptor.hostAttributes !== undefined) hide(copy, 'hostAttributes', descriptor.hostAttributes);
  delete (copy as { secrets?: unknown }).secrets;
  if (sealed !== undefined) hide(copy, 'secrets', sealed);
  return copy;
}

/** Defines `key` on `target` as a read-only, non-enumerable property. */
export function hide(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, writable: false, configurable: true });
}

function redacted<T extends object>(target: T): Readonly<T> {
  Object.defineProperty(target, 'toJSON', { value: () => REDACTED, enumerable: false });
  Object.defineProperty(target, inspectCustom, { value: () => REDACTED, enumerable: false });
  return Object.freeze(target);
}
