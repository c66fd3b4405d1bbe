import { open } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { ResultObjectMissing, type ResultReader } from '../../ports/result-reader.port';

/**
 * Results on the local filesystem, as the Worker's embedded object store writes them: the object
 * of `resultPath` is the file `<root>/<resultPath>` (the standalone service's `objects/` directory).
 * A path that would leave the root is treated as missing.
 */
export class FileSystemResultReader implements ResultReader {
  constructor(private readonly root: string) {}

  async open(resultPath: string): Promise<Readable> {
    const path = join(this.root, normalize(resultPath.replace(/^\/+/, '')));
    const rel = relative(this.root, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new ResultObjectMissing();
    // Opened first, so a missing file is told apart here rather than as a stream error mid-response.
    const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw new ResultObjectMissing();
      throw error;
    });
    return handle.createReadStream();
  }
}
