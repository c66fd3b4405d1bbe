import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryResultStore } from '../../testing/in-memory-result-store';
import { resultStoreContract } from '../../testing/result-store.contract';
import { FileSystemResultStore } from './result-store.fs';

describe('the result store contract', () => {
  describe(FileSystemResultStore.name, () => {
    const dir = mkdtempSync(join(tmpdir(), 'fetcher-result-contract-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    resultStoreContract(async () => {
      const store = new FileSystemResultStore(join(dir, 'objects'), join(dir, 'uploads'));
      await store.removeAbandonedWrites();
      return { store, read: (key) => readFile(join(dir, 'objects', key)).catch(() => undefined) };
    });
  });

  // The specs' stand-in for S3 (streaming) and for the filesystem store (Buffers only).
  for (const streaming of [true, false]) {
    describe(`${InMemoryResultStore.name}, streaming: ${streaming}`, () => {
      resultStoreContract(() => {
        const store = new InMemoryResultStore({ streaming });
        return { store, read: (key) => Promise.resolve(store.objects.get(key)) };
      });
    });
  }
});
