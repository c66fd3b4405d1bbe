import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes every directory under `root` (and `root`) 0700 and every file 0600. For files written by
 * code that sets its own modes: PGlite's file system layer chmods what it creates to 0666 and 0755
 * whatever the process umask says. Symbolic links are left alone (chmod would follow them).
 */
export async function restrictTree(root: string): Promise<void> {
  const info = await lstat(root);
  if (info.isDirectory()) {
    if ((info.mode & 0o777) !== 0o700) await chmod(root, 0o700);
    for (const name of await readdir(root)) await restrictTree(join(root, name));
  } else if (info.isFile() && (info.mode & 0o777) !== 0o600) {
    await chmod(root, 0o600);
  }
}
