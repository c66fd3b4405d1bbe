import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { failure } from '../cli-error';
import type { ResultSource } from './result-source';

/** A stored result saved as a file (the base64 text exactly as the object store holds it). */
export class FileResultSource implements ResultSource {
  constructor(readonly path: string, readonly description: string = path) {}

  async open(): Promise<Readable> {
    // Opening first turns a missing file into a clear message instead of a stream error later.
    let handle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw failure(`no result at ${this.description}`);
      if (code === 'EACCES') throw failure(`cannot read ${this.description}: permission denied`);
      if (code === 'EISDIR') throw failure(`${this.description} is a directory`);
      throw failure(`cannot read ${this.description}`);
    }
    return handle.createReadStream({ autoClose: true });
  }
}
