import { hostname } from 'node:os';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@fetcher/platform';

/** The lock file in the data directory: it names the process that holds the directory. */
export const LOCK_FILE = 'fetcher.lock';

/** What the lock file holds: enough for the message a second process prints, nothing secret. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
}

export interface DataDirLock {
  /** Removes the lock file if it is still this process's; safe to call twice. */
  release(): Promise<void>;
}

export interface LockOptions {
  readonly pid?: number;
  readonly host?: string;
  /** Whether a process with this id runs on this machine; tests replace it. */
  readonly isRunning?: (pid: number) => boolean;
  readonly now?: () => Date;
}

/**
 * Takes the data directory for this process alone. Two processes on one directory would each keep
 * their own in-memory view of the same records, accept the same `configName` twice and share the
 * demo database's files, so the second one refuses to start and names the first.
 *
 * The lock is a file created exclusively (by `link`, which fails if it exists) holding the owner's pid. A lock left by a
 * process that no longer runs (killed with SIGKILL, or a machine that rebooted) is taken over. A
 * lock written on another host (a directory on a network share) cannot be checked and is respected.
 */
export async function lockDataDir(dir: string, options: LockOptions = {}): Promise<DataDirLock> {
  const path = join(dir, LOCK_FILE);
  const self: LockOwner = { pid: options.pid ?? process.pid, host: options.host ?? hostname(), startedAt: (options.now?.() ?? new Date()).toISOString() };
  const isRunning = options.isRunning ?? processIsRunning;

  // Two attempts: the second follows the removal of a stale lock. Should another process take the
  // directory between the removal and the second attempt, the second attempt finds its lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await createExclusively(path, self)) return ownedLock(path, self);
    const owner = await readOwner(path);
    if (owner === 'gone') continue; // released meanwhile
    if (owner !== undefined && (owner.host !== self.host || isRunning(owner.pid))) {
      throw new ConfigError([`FETCHER_DATA_DIR: ${dir} is in use by another Fetcher process (pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}); stop it, or start this one with another FETCHER_DATA_DIR`]);
    }
    if (owner === undefined && attempt > 0) break;
    // The owner no longer runs, or the file is unreadable garbage (a crash while it was written).
    await unlink(path).catch(() => undefined);
  }
  throw new ConfigError([`FETCHER_DATA_DIR: cannot take the lock file ${LOCK_FILE}; if no other Fetcher process uses ${dir}, delete ${path}`]);
}

/**
 * Writes the owner to a private temporary file, then links it to the lock's name: the link fails if
 * the lock exists, and a lock that exists is always complete (never a half-written file that a
 * second process could mistake for garbage).
 */
async function createExclusively(path: string, owner: LockOwner): Promise<boolean> {
  const staged = `${path}.${owner.pid}.tmp`;
  try {
    await writeFile(staged, `${JSON.stringify(owner)}\n`, { mode: 0o600, flush: true });
    await link(staged, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new ConfigError([`FETCHER_DATA_DIR: cannot create the lock file ${LOCK_FILE}`]);
  } finally {
    await unlink(staged).catch(() => undefined);
  }
}

/** The lock's owner; `'gone'` when the file no longer exists; undefined when it cannot be parsed. */
async function readOwner(path: string): Promise<LockOwner | 'gone' | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return 'gone';
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isSafeInteger(parsed.pid) && typeof parsed.host === 'string' && typeof parsed.startedAt === 'string') return parsed as LockOwner;
  } catch {
    // below
  }
  return undefined;
}

function ownedLock(path: string, self: LockOwner): DataDirLock {
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= (async () => {
        const owner = await readOwner(path);
        // Never remove a lock another process took over (after this one was presumed dead).
        if (typeof owner === 'object' && owner.pid === self.pid && owner.host === self.host && owner.startedAt === self.startedAt) await unlink(path).catch(() => undefined);
      })()),
  };
}

/** Signal 0 checks that the process exists without touching it; EPERM means it exists under another user. */
function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
