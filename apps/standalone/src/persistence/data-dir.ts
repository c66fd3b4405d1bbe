import { chmod, mkdir, stat } from 'node:fs/promises';
import { ConfigError } from '@fetcher/platform';

/** What the caller should warn about: the mode an existing directory had before it was made private. */
export interface DataDirPreparation {
  readonly narrowedFrom?: number;
}

/**
 * Creates the data directory for its owner only, or makes an existing one private: it holds the
 * master key, the stored credentials and every result, and a directory made earlier by hand (or by
 * `mkdir` under a default umask) is readable by everybody on the machine.
 */
export async function prepareDataDir(dir: string): Promise<DataDirPreparation> {
  const existing = await stat(dir).catch(() => undefined);
  if (existing && !existing.isDirectory()) throw new ConfigError(['FETCHER_DATA_DIR: is not a directory']);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch {
    throw new ConfigError(['FETCHER_DATA_DIR: cannot be created']);
  }
  const info = await stat(dir);
  const mode = info.mode & 0o777;
  if ((mode & 0o077) === 0) return {};
  try {
    await chmod(dir, 0o700);
  } catch {
    throw new ConfigError([`FETCHER_DATA_DIR: is readable by others (mode ${mode.toString(8)}) and cannot be made private; chmod 700 it`]);
  }
  return { narrowedFrom: mode };
}
