import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, deriveSubKeys, type KeyRing, type SubKeys } from '@fetcher/platform';
import { MASTER_KEY_FILE, type MasterKey } from './master-key';

/** The file that records which master key the data directory's contents are encrypted with. */
export const KEY_CHECK_FILE = 'key.check';

/**
 * The label MACed under the credentials sub-key. What the file holds is a one-way function of the
 * key: it tells whether a key is the right one, and nothing about the key.
 */
const CHECK_LABEL = 'fetcher-data-dir-key-check-v1';

interface KeyCheckRecord {
  readonly format: 1;
  /** The key's version label (`APP_ENC_KEY_VERSION`), for the operator's eyes. */
  readonly keyVersion: string;
  readonly check: string;
}

export type KeyCheckOutcome = 'recorded' | 'matched' | 'rotated';

/**
 * Refuses to start with a master key other than the one the data directory was written with.
 * With the wrong key every stored credential and result is unreadable (connections fail with a
 * generic error) and the demo connection would be re-encrypted under the new key, leaving records
 * under two keys with the same version label. The first start records the key's check value; a
 * directory from before the check existed is compared with its generated `master.key`, if it has one.
 *
 * A key rotation is accepted: when the recorded key is one of `APP_ENC_KEY_PREVIOUS`, the check
 * value moves to the new current key.
 */
export async function checkDataDirKey(dataDir: string, ring: KeyRing, key: Pick<MasterKey, 'origin'>): Promise<KeyCheckOutcome> {
  const path = join(dataDir, KEY_CHECK_FILE);
  const fromFile = await readRecordedCheck(path);
  const recorded = fromFile ?? (await legacyMasterKeyCheck(dataDir));
  const current = checkValue(ring.current());
  if (recorded === undefined || (fromFile === undefined && sameCheck(recorded, current))) {
    await writeCheck(path, { format: 1, keyVersion: ring.currentVersion, check: current });
    return 'recorded';
  }
  if (sameCheck(recorded, current)) return 'matched';
  if (ring.all().some((subKeys) => sameCheck(recorded, checkValue(subKeys)))) {
    await writeCheck(path, { format: 1, keyVersion: ring.currentVersion, check: current });
    return 'rotated';
  }
  const which = key.origin === 'APP_ENC_KEY' ? 'APP_ENC_KEY' : `FETCHER_DATA_DIR: ${MASTER_KEY_FILE}`;
  throw new ConfigError([
    `${which}: is not the master key this data directory was written with (${join(dataDir, KEY_CHECK_FILE)} records another one), so its stored credentials and results cannot be read. ` +
      'Start with the original key; to change keys, set the new one in APP_ENC_KEY and the old one in APP_ENC_KEY_PREVIOUS; or use another FETCHER_DATA_DIR',
  ]);
}

function checkValue(subKeys: SubKeys): string {
  return createHmac('sha256', subKeys.credentials).update(CHECK_LABEL).digest('hex');
}

function sameCheck(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

async function readRecordedCheck(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const record = JSON.parse(text) as Partial<KeyCheckRecord>;
    if (record.format === 1 && typeof record.check === 'string' && /^[0-9a-f]{64}$/.test(record.check)) return record.check;
  } catch {
    // below
  }
  throw new ConfigError([`FETCHER_DATA_DIR: ${KEY_CHECK_FILE} is damaged; restore it from a backup, or delete it if you are sure the current master key is the one the data directory was written with`]);
}

/** A directory written before `key.check` existed: its generated key, if any, is the one it was written with. */
async function legacyMasterKeyCheck(dataDir: string): Promise<string | undefined> {
  const text = await readFile(join(dataDir, MASTER_KEY_FILE), 'utf8').catch(() => undefined);
  if (text === undefined || text.trim() === '') return undefined;
  return checkValue(deriveSubKeys(Buffer.from(text.trim(), 'base64')));
}

/** Written to a temporary file and renamed into place, so that a crash never leaves half a record. */
async function writeCheck(path: string, record: KeyCheckRecord): Promise<void> {
  const staged = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(staged, `${JSON.stringify(record)}\n`, { mode: 0o600, flush: true });
    await chmod(staged, 0o600);
    await rename(staged, path);
  } catch {
    throw new ConfigError([`FETCHER_DATA_DIR: cannot write ${KEY_CHECK_FILE}`]);
  }
}
