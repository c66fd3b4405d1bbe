import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ResultStore } from '../../ports/result-store.port';

/** An object being written: its final name plus this suffix, renamed into place once complete. */
const TEMPORARY = /\.tmp-[0-9a-f]{8}$/;
const temporaryPath = (path: string): string => `${path}.tmp-${randomBytes(4).toString('hex')}`;

/**
 * Object storage on the local filesystem, for the Worker's results: an object is the file
 * `<root>/<key>`, holding exactly the bytes S3 would hold (the base64 text of the encrypted result).
 * As in S3, nothing is visible under a key until the put or the multipart completion succeeds:
 * objects are written to a temporary file and renamed into place; parts wait under
 * `<uploads>/<uploadId>/` until completion or abort.
 */
export class FileSystemResultStore implements ResultStore {
  constructor(
    private readonly root: string,
    private readonly uploads: string,
  ) {}

  async putObject(key: string, body: Buffer): Promise<void> {
    const path = await this.#objectPath(key);
    const temporary = temporaryPath(path);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(body);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  }

  async createMultipart(key: string): Promise<string> {
    await this.#objectPath(key); // refuses a bad key before any part arrives
    const uploadId = randomUUID();
    await mkdir(join(this.uploads, uploadId), { recursive: true, mode: 0o700 });
    return uploadId;
  }

  async uploadPart(_key: string, uploadId: string, partNumber: number, body: Buffer): Promise<string> {
    const etag = `"${randomBytes(8).toString('hex')}"`;
    const handle = await open(this.#partPath(uploadId, partNumber, etag), 'w', 0o600);
    try {
      await handle.writeFile(body);
    } finally {
      await handle.close();
    }
    return etag;
  }

  async completeMultipart(key: string, uploadId: string, parts: readonly { partNumber: number; etag: string }[]): Promise<void> {
    const path = await this.#objectPath(key);
    const temporary = temporaryPath(path);
    const ordered = [...parts].sort((a, b) => a.partNumber - b.partNumber);
    const out = createWriteStream(temporary, { flags: 'wx', mode: 0o600 });
    try {
      for (const part of ordered) {
        await pipeline(createReadStream(this.#partPath(uploadId, part.partNumber, part.etag)), out, { end: false });
      }
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      await rename(temporary, path);
    } catch (error) {
      out.destroy();
      await rm(temporary, { force: true });
      throw error;
    }
    await rm(join(this.uploads, uploadId), { recursive: true, force: true });
  }

  async abortMultipart(_key: string, uploadId: string): Promise<void> {
    await rm(join(this.uploads, uploadId), { recursive: true, force: true });
  }

  /**
   * At start, before anything writes: drops what a killed process left unfinished, which was never
   * visible under a key: multipart uploads, and the temporary files of puts and completions.
   */
  async removeAbandonedWrites(): Promise<void> {
    await mkdir(this.uploads, { recursive: true, mode: 0o700 });
    for (const name of await readdir(this.uploads)) await rm(join(this.uploads, name), { recursive: true, force: true });
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(this.root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && TEMPORARY.test(entry.name)) await rm(join(entry.parentPath, entry.name), { force: true });
    }
  }

  #partPath(uploadId: string, partNumber: number, etag: string): string {
    if (!/^[0-9a-f-]{36}$/.test(uploadId)) throw new Error('unknown upload');
    return join(this.uploads, uploadId, `${String(partNumber).padStart(5, '0')}-${etag.replace(/"/g, '')}`);
  }

  async #objectPath(key: string): Promise<string> {
    const path = join(this.root, normalize(key.replace(/^\/+/, '')));
    const rel = relative(this.root, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error('object key leaves the storage directory');
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    return path;
  }
}
