import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const STALE_MS = 60 * 60_000;

/** The spool directory cannot be used; startup stops with this. */
export class SpoolDirError extends Error {
  constructor() {
    super('RESULT_SPOOL_DIR: cannot be created or written');
    this.name = 'SpoolDirError';
  }
}

/**
 * At startup: create the directory (owner only), prove it is writable, and delete spool files older
 * than an hour (left by a killed process; they hold only ciphertext, but nobody will read them).
 */
export async function prepareSpoolDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const probe = join(dir, `.probe-${randomUUID()}`);
    await writeFile(probe, '', { mode: 0o600 });
    await rm(probe, { force: true });
  } catch {
    throw new SpoolDirError();
  }
  const now = Date.now();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs > STALE_MS) await rm(path, { force: true }).catch(() => undefined);
  }
}
