import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordDirectory } from './record-directory';

describe(RecordDirectory.name, () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'fetcher-records-')), 'jobs');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes records that a new instance reads back, dates included', async () => {
    const { directory } = await RecordDirectory.open<{ id: string; at: Date; n: number }>(dir);
    const record = { id: 'a', at: new Date('2026-01-02T03:04:05.678Z'), n: 1 };
    await directory.save('a', () => record);
    const { records } = await RecordDirectory.open<typeof record>(dir);
    expect(records).toEqual(new Map([['a', record]]));
    expect(JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'))).toEqual({ id: 'a', at: { $date: '2026-01-02T03:04:05.678Z' }, n: 1 });
  });

  it('keeps the newest state when writes of one record overlap', async () => {
    const { directory } = await RecordDirectory.open<{ n: number }>(dir);
    let state = { n: 0 };
    const writes = [];
    for (let i = 1; i <= 20; i++) {
      state = { n: i };
      writes.push(directory.save('x', () => state));
    }
    await Promise.all(writes);
    const { records } = await RecordDirectory.open<{ n: number }>(dir);
    expect(records.get('x')).toEqual({ n: 20 });
  });

  it('removes a record, and drops temporary files a crash left behind', async () => {
    const { directory } = await RecordDirectory.open<{ n: number }>(dir);
    await directory.save('gone', () => ({ n: 1 }));
    await directory.save('kept', () => ({ n: 2 }));
    await directory.save('gone', () => undefined);
    writeFileSync(join(dir, 'kept.json.tmp-deadbeef'), '{"n":');
    const { records } = await RecordDirectory.open<{ n: number }>(dir);
    expect([...records.keys()]).toEqual(['kept']);
    expect(readdirSync(dir)).toEqual(['kept.json']);
  });

  it('refuses ids that could name another path', async () => {
    const { directory } = await RecordDirectory.open<{ n: number }>(dir);
    await expect(directory.save('../x', () => ({ n: 1 }))).rejects.toThrow('record ids');
  });
});
