import { KeyRing, type VersionedKey } from './key-ring';
import { MIN_MASTER_KEY_BYTES } from './sub-keys';

export interface KeyRingEnv {
  readonly APP_ENC_KEY?: string;
  readonly APP_ENC_KEY_VERSION?: string;
  readonly APP_ENC_KEY_PREVIOUS?: string;
}

export type KeyRingEnvResult = { ok: true; ring: KeyRing } | { ok: false; problems: string[] };

// Standard alphabet with padding, as the original's Go decoder requires; URL-safe or unpadded text is refused.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const VERSION_LABEL = /^[^\s:,]+$/;

/**
 * Builds the key ring from its three variables. Every problem is collected as `VARIABLE: rule`;
 * no message ever contains a key, and entries of the previous-key list are named by position.
 */
export function parseKeyRingEnv(env: KeyRingEnv): KeyRingEnvResult {
  const problems: string[] = [];
  const blankToUndefined = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

  const version = blankToUndefined(env.APP_ENC_KEY_VERSION) ?? '1';
  if (!VERSION_LABEL.test(version)) problems.push('APP_ENC_KEY_VERSION: must not contain spaces, ":" or ","');

  const rawKey = blankToUndefined(env.APP_ENC_KEY);
  let current: VersionedKey | undefined;
  if (rawKey === undefined) problems.push('APP_ENC_KEY: is required');
  else {
    const key = decodeKey(rawKey, 'APP_ENC_KEY:', problems);
    if (key) current = { version, key };
  }

  const previous: VersionedKey[] = [];
  const seen = new Set([version]);
  const list = blankToUndefined(env.APP_ENC_KEY_PREVIOUS);
  (list === undefined ? [] : list.split(',')).forEach((entry, index) => {
    const where = `APP_ENC_KEY_PREVIOUS: entry ${index + 1}`;
    const colon = entry.indexOf(':');
    const label = colon < 0 ? '' : entry.slice(0, colon).trim();
    if (colon < 0 || !VERSION_LABEL.test(label)) {
      problems.push(`${where} must be <version>:<base64 key>`);
      return;
    }
    if (seen.has(label)) {
      problems.push(`${where} repeats a key version already on the ring`);
      return;
    }
    seen.add(label);
    const key = decodeKey(entry.slice(colon + 1).trim(), where, problems);
    if (key) previous.push({ version: label, key });
  });

  if (problems.length > 0 || !current) return { ok: false, problems };
  return { ok: true, ring: KeyRing.create({ current, previous }) };
}

function decodeKey(text: string, where: string, problems: string[]): Buffer | undefined {
  if (!STRICT_BASE64.test(text)) {
    problems.push(`${where} must be standard base64`);
    return undefined;
  }
  const key = Buffer.from(text, 'base64');
  if (key.length < MIN_MASTER_KEY_BYTES) {
    problems.push(`${where} must decode to at least ${MIN_MASTER_KEY_BYTES} bytes`);
    return undefined;
  }
  return key;
}
