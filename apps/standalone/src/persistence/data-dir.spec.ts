import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@fetcher/platform';
import { prepareDataDir } from './data-dir';

describe(prepareDataDir.name, () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'data-dir-spec-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates a missing directory for its owner only and reports nothing to warn about', async () => {
    const dir = join(root, 'a', '.fetcher-data');
    expect(await prepareDataDir(dir)).toEqual({});
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('makes an existing directory that others can read private, and reports the mode it had', async () => {
    const dir = join(root, '.fetcher-data');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    expect(await prepareDataDir(dir)).toEqual({ narrowedFrom: 0o755 });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('leaves a private directory as it is', async () => {
    const dir = join(root, '.fetcher-data');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    expect(await prepareDataDir(dir)).toEqual({});
  });

  it('refuses a path that is not a directory, naming the variable', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    await expect(prepareDataDir(file)).rejects.toThrow(ConfigError);
    await expect(prepareDataDir(file)).rejects.toMatchObject({ problems: ['FETCHER_DATA_DIR: is not a directory'] });
  });
});
