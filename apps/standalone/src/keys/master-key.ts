import { randomBytes } from 'node:crypto';
import { chmod, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@fetcher/platform';

/** The generated key's file in the data directory; the CLI reads the same name. */
export const MASTER_KEY_FILE = 'master.key';

export interface MasterKey {
  readonly base64: string;
  /** Where it came from, for the banner: never the key itself. */
  readonly origin: 'APP_ENC_KEY' | 'generated' | 'data directory';
}

/**
 * `APP_ENC_KEY` when set. Otherwise the key kept in the data directory, generated (32 random bytes)
 * on the first start and written with mode 0600, so that a restart can still read every stored
 * credential and result. The file is created exclusively: two processes starting at once cannot
 * each write a different key.
 */
export async function loadOrCreateMasterKey(dataDir: string, fromEnv: string | undefined): Promise<MasterKey> {
  if (fromEnv !== undefined) return { base64: fromEnv, origin: 'APP_ENC_KEY' };
  const path = join(dataDir, MASTER_KEY_FILE);
  const existing = await readKey(path);
  if (existing !== undefined) return { base64: existing, origin: 'data directory' };
  const base64 = randomBytes(32).toString('base64');
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(`${base64}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await chmod(path, 0o600); // the umask could have narrowed nothing, but make the mode exact
    return { base64, origin: 'generated' };
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = await readKey(path);
      if (theirs !== undefined) return { base64: theirs, origin: 'data directory' };
    }
    throw new ConfigError([`FETCHER_DATA_DIR: cannot create the master key file ${MASTER_KEY_FILE}`]);
  }
}

async function readKey(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  const info = await stat(path);
  if ((info.mode & 0o077) !== 0) throw new ConfigError([`FETCHER_DATA_DIR: ${MASTER_KEY_FILE} must be readable by its owner only (chmod 600)`]);
  return text.trim();
}
