import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where decrypted bytes wait until they are authenticated. Nothing reaches the user's file or stdout
 * before `commit()`: an altered result must not print a single unauthenticated byte. The staging file
 * is private (mode 0600) and removed by `commit()` and `discard()` alike.
 */
export interface StagedOutput {
  /** The stream the decryptor writes to. */
  readonly stream: WriteStream;
  /** Publishes the staged bytes: renames onto `--out`, or copies them to stdout. */
  commit(): Promise<void>;
  /** Drops the staged bytes; safe to call more than once, and after `commit()`. */
  discard(): Promise<void>;
}

/** Stages next to `path`, so that the final step is one atomic rename on the same filesystem. */
export function stageFile(path: string): StagedOutput {
  const staging = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
  const stream = createWriteStream(staging, { mode: 0o600, flags: 'wx' });
  let settled = false;
  return {
    stream,
    async commit() {
      settled = true;
      await rename(staging, path);
    },
    async discard() {
      if (settled) return;
      settled = true;
      stream.destroy();
      await rm(staging, { force: true });
    },
  };
}

/** Stages in a private temporary directory, then copies to `target` (stdout). */
export async function stageForStream(target: Writable): Promise<StagedOutput> {
  const dir = await mkdtemp(join(tmpdir(), 'fetcher-cli-'));
  const staging = join(dir, 'result.json');
  const stream = createWriteStream(staging, { mode: 0o600, flags: 'wx' });
  const cleanup = () => rm(dir, { recursive: true, force: true });
  return {
    stream,
    async commit() {
      try {
        // `end: false`: stdout belongs to the process; closing it would lose later writes.
        await pipeline(createReadStream(staging), target, { end: false });
      } finally {
        await cleanup();
      }
    },
    async discard() {
      stream.destroy();
      await cleanup();
    },
  };
}
