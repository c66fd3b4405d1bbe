import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeRecord, encodeRecord } from './json-codec';

const SUFFIX = '.json';

/**
 * Where an embedded store writes its records down. `RecordDirectory` keeps them in files; a store
 * opened with `volatileRecords()` keeps them in memory only (the specs' fake of the same adapter).
 */
export interface RecordSink<T> {
  /** Stores what `current()` answers when this write's turn comes; `undefined` removes the record. */
  save(id: string, current: () => T | undefined): Promise<void>;
  /** Resolves when every write started so far has finished. */
  flush(): Promise<void>;
}

/** A sink that keeps nothing: the store's in-memory state is all there is. */
export function volatileRecords<T>(): RecordSink<T> {
  return { save: () => Promise.resolve(), flush: () => Promise.resolve() };
}
const SAFE_ID = /^[A-Za-z0-9_.-]+$/;

/**
 * One JSON file per record in a directory: the durable half of an in-memory store. A write goes to
 * a private temporary file, is flushed to disk, then renamed over the record, so a reader (or a
 * restart after a crash) sees the old record or the new one, never a torn one. Writes of one record
 * are chained, so an older state can never overtake a newer one; each write stores the newest state
 * the store holds when its turn comes. A write resolves once the rename is done: a process killed
 * after that keeps it.
 */
export class RecordDirectory<T> implements RecordSink<T> {
  readonly #chains = new Map<string, Promise<void>>();

  private constructor(readonly dir: string) {}

  /** Creates the directory (mode 0700) if needed, drops temporary files a crash left, and reads every record. */
  static async open<T>(dir: string): Promise<{ directory: RecordDirectory<T>; records: Map<string, T> }> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const records = new Map<string, T>();
    for (const name of await readdir(dir)) {
      if (name.includes('.tmp-')) {
        await rm(join(dir, name), { force: true });
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      records.set(name.slice(0, -SUFFIX.length), decodeRecord<T>(await readFile(join(dir, name), 'utf8')));
    }
    return { directory: new RecordDirectory<T>(dir), records };
  }

  /** Stores what `current()` answers when this write's turn comes; `undefined` removes the record. */
  save(id: string, current: () => T | undefined): Promise<void> {
    if (!SAFE_ID.test(id)) return Promise.reject(new Error('record ids are letters, digits, _ . and -'));
    const previous = this.#chains.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.#persist(id, current()));
    const tracked = next.finally(() => {
      if (this.#chains.get(id) === tracked) this.#chains.delete(id);
    });
    this.#chains.set(id, tracked.catch(() => undefined));
    return next;
  }

  /** Resolves when every write started so far has finished. */
  async flush(): Promise<void> {
    await Promise.all([...this.#chains.values()]);
  }

  async #persist(id: string, record: T | undefined): Promise<void> {
    const path = join(this.dir, `${id}${SUFFIX}`);
    if (record === undefined) {
      await rm(path, { force: true });
      return;
    }
    const temporary = `${path}.tmp-${randomBytes(4).toString('hex')}`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(encodeRecord(record));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  }
}
