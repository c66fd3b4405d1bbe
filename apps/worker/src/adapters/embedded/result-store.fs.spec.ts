import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSystemResultStore } from './result-store.fs';

describe(FileSystemResultStore.name, () => {
  let dir: string;
  let sut: FileSystemResultStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-objects-'));
    sut = new FileSystemResultStore(join(dir, 'objects'), join(dir, 'uploads'));
    await sut.removeAbandonedWrites();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores a put object at its key', async () => {
    await sut.putObject('external-data/a.json', Buffer.from('QUJD'));
    expect(readFileSync(join(dir, 'objects', 'external-data', 'a.json'), 'utf8')).toBe('QUJD');
  });

  it('makes a multipart object visible only on completion, with its parts in order', async () => {
    const key = 'acme/external-data/b.json';
    const id = await sut.createMultipart(key);
    const second = await sut.uploadPart(key, id, 2, Buffer.from('world'));
    const first = await sut.uploadPart(key, id, 1, Buffer.from('hello '));
    expect(existsSync(join(dir, 'objects', key))).toBe(false);
    await sut.completeMultipart(key, id, [{ partNumber: 2, etag: second }, { partNumber: 1, etag: first }]);
    expect(readFileSync(join(dir, 'objects', key), 'utf8')).toBe('hello world');
    expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
  });

  it('leaves nothing behind after an abort', async () => {
    const id = await sut.createMultipart('external-data/c.json');
    await sut.uploadPart('external-data/c.json', id, 1, Buffer.from('x'));
    await sut.abortMultipart('external-data/c.json', id);
    expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
    expect(existsSync(join(dir, 'objects', 'external-data', 'c.json'))).toBe(false);
  });

  it('removes, at start, the temporary files and parts a killed process left, and keeps the objects', async () => {
    await sut.putObject('acme/external-data/kept.json', Buffer.from('QUJD'));
    const objects = join(dir, 'objects', 'acme', 'external-data');
    writeFileSync(join(objects, 'lost.json.tmp-0a1b2c3d'), 'half');
    writeFileSync(join(dir, 'objects', 'top.json.tmp-deadbeef'), 'half');
    mkdirSync(join(dir, 'uploads', '3f1c2b4e-0000-4000-8000-000000000000'));
    await sut.removeAbandonedWrites();
    expect(readdirSync(objects)).toEqual(['kept.json']);
    expect(readdirSync(join(dir, 'objects'))).toEqual(['acme']);
    expect(readdirSync(join(dir, 'uploads'))).toEqual([]);
  });

  it('refuses a key that leaves the storage directory', async () => {
    await expect(sut.putObject('../../etc/x', Buffer.from('x'))).rejects.toThrow('leaves the storage directory');
  });
});
