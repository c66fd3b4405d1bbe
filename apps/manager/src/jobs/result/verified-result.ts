import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** A result whose AES-GCM tag and HMAC passed: its plaintext, staged in a private file until sent. */
export interface VerifiedResult {
  readonly jobId: string;
  readonly plaintextBytes: number;
  /** A stream of the verified plaintext; call once. */
  open(): Readable;
  /** Removes the staged plaintext; safe to call more than once. */
  release(): Promise<void>;
}

/**
 * Where decrypted bytes wait until both checks pass: a private directory (0700) under the system's
 * temporary directory, one file (0600). The decryptor emits plaintext before it has seen the GCM tag,
 * so nothing may reach the client before the end of the object: an altered result is never sent,
 * not even in part, and its status can still be an error.
 */
export class ResultStaging {
  private constructor(private readonly dir: string) {}

  static async create(): Promise<ResultStaging> {
    return new ResultStaging(await mkdtemp(join(tmpdir(), 'fetcher-result-')));
  }

  private get file(): string {
    return join(this.dir, 'result.json');
  }

  /** A fresh (truncated) file to decrypt into: one per attempt, as each key of the ring is tried. */
  writer(): Writable {
    return createWriteStream(this.file, { mode: 0o600, flags: 'w' });
  }

  verified(jobId: string, plaintextBytes: number): VerifiedResult {
    let opened = false;
    return {
      jobId,
      plaintextBytes,
      open: () => {
        if (opened) throw new Error('a verified result is read once');
        opened = true;
        return createReadStream(this.file);
      },
      release: () => this.discard(),
    };
  }

  async discard(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
