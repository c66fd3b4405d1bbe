import { existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareSpoolDir, SpoolDirError } from './spool-dir';

describe(prepareSpoolDir.name, () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'spool-dir-spec-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates the directory for the owner only and removes spool files older than an hour', async () => {
    const dir = join(root, 'a', 'spool');
    await prepareSpoolDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const old = join(dir, 'old.b64');
    const fresh = join(dir, 'fresh.b64');
    writeFileSync(old, 'x');
    writeFileSync(fresh, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    await prepareSpoolDir(dir);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it('refuses a directory it cannot create, naming the variable', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    // A path below a regular file cannot be created, whoever runs the test (root ignores modes).
    await expect(prepareSpoolDir(join(file, 'spool'))).rejects.toThrow(new SpoolDirError());
    expect(new SpoolDirError().message).toBe('RESULT_SPOOL_DIR: cannot be created or written');
  });
});
