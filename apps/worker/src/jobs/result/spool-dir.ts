import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

const STALE_MS = 60 * 60_000;

/** The spool directory cannot be used; startup stops with this. */
export class SpoolDirError extends Error {
  constructor() {
    super('RESULT_SPOOL_DIR: cannot be created or written');
    this.name = 'SpoolDirError';
  }
}

/** Who writes a spool subdirectory: a process on a host. */
export interface SpoolOwner {
  readonly host: string;
  readonly pid: number;
}

export function currentSpoolOwner(): SpoolOwner {
  return { host: hostname(), pid: process.pid };
}

/**
 * The directory this process spools into: `<root>/<host>-<pid>`. Naming the owner lets the next start
 * tell the files of a process that is gone (removed at once) from those of one still running (kept).
 */
export function processSpoolDir(root: string, owner: SpoolOwner = currentSpoolOwner()): string {
  return join(root, `${hostPrefix(owner.host)}${owner.pid}`);
}

function hostPrefix(host: string): string {
  return `${host.replace(/[^A-Za-z0-9.-]/g, '_')}-`;
}

/** Whether a process with this id runs on this host (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * At startup: create the directory (owner only), prove it is writable, and delete what processes
 * that are gone left behind (ciphertext only, but nobody will read it), then create this process's
 * own subdirectory and return it.
 *
 * - A subdirectory of this host whose process no longer runs, or that carries this process's own id
 *   (a container restarted with the same pid), is removed at once.
 * - A subdirectory of this host whose process runs is kept: it may be spooling right now.
 * - Another host's subdirectory (a shared volume) cannot be checked from here, and spool files from
 *   before this layout carry no owner: those go when nothing in them changed for an hour.
 */
export async function prepareSpoolDir(root: string, owner: SpoolOwner = currentSpoolOwner(), alive: (pid: number) => boolean = processAlive): Promise<string> {
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    const probe = join(root, `.probe-${randomUUID()}`);
    await writeFile(probe, '', { mode: 0o600 });
    await rm(probe, { force: true });
  } catch {
    throw new SpoolDirError();
  }
  const own = processSpoolDir(root, owner);
  const ownHostPrefix = hostPrefix(owner.host);
  const now = Date.now();
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const path = join(root, name);
    const info = await stat(path).catch(() => undefined);
    if (!info) continue;
    const pid = name.startsWith(ownHostPrefix) ? Number(name.slice(ownHostPrefix.length)) : Number.NaN;
    const ofThisHost = info.isDirectory() && Number.isSafeInteger(pid) && pid > 0;
    if (ofThisHost ? path === own || !alive(pid) : now - (await lastChange(path, info.mtimeMs)) > STALE_MS) {
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  try {
    await mkdir(own, { recursive: true, mode: 0o700 });
  } catch {
    throw new SpoolDirError();
  }
  return own;
}

/** The latest modification of a file, or of a directory and the files directly in it. */
async function lastChange(path: string, mtimeMs: number): Promise<number> {
  const names = await readdir(path).catch(() => [] as string[]);
  let latest = mtimeMs;
  for (const name of names) latest = Math.max(latest, (await stat(join(path, name)).catch(() => undefined))?.mtimeMs ?? 0);
  return latest;
}
