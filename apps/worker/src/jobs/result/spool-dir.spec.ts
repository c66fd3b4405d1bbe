import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareSpoolDir, processAlive, processSpoolDir, SpoolDirError } from './spool-dir';

describe(prepareSpoolDir.name, () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'spool-dir-spec-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const me = { host: 'worker-a', pid: 4242 };
  const running = new Set([1000]);
  const alive = (pid: number) => running.has(pid);
  const plant = (dir: string, name = 'job-token.b64', hoursAgo = 0): string => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, name);
    writeFileSync(file, 'x');
    const at = new Date(Date.now() - hoursAgo * 60 * 60_000);
    utimesSync(file, at, at);
    utimesSync(dir, at, at);
    return file;
  };

  it('creates the directory and this process\'s own subdirectory, for the owner only, and returns the latter', async () => {
    const dir = join(root, 'a', 'spool');
    const own = await prepareSpoolDir(dir, me, alive);
    expect(own).toBe(join(dir, 'worker-a-4242'));
    expect(own).toBe(processSpoolDir(dir, me));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(own).mode & 0o777).toBe(0o700);
  });

  it('removes at once what a process of this host that is gone left, and keeps what a running one spools', async () => {
    const dead = plant(join(root, 'worker-a-999'));
    const live = plant(join(root, 'worker-a-1000'));
    const previousMe = plant(join(root, 'worker-a-4242')); // a restarted container gets the same pid
    await prepareSpoolDir(root, me, alive);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(join(root, 'worker-a-999'))).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(previousMe)).toBe(false);
    expect(readdirSync(join(root, 'worker-a-4242'))).toEqual([]);
  });

  it('removes another host\'s files and files without an owner only after an hour without change', async () => {
    const otherOld = plant(join(root, 'worker-b-1'), 'a.b64', 2);
    const otherFresh = plant(join(root, 'worker-b-2'), 'a.b64', 0);
    const looseOld = plant(root, 'old.b64', 2);
    const looseFresh = plant(root, 'fresh.b64', 0);
    await prepareSpoolDir(root, me, alive);
    expect(existsSync(join(root, 'worker-b-1'))).toBe(false);
    expect(existsSync(otherOld)).toBe(false);
    expect(existsSync(otherFresh)).toBe(true);
    expect(existsSync(looseOld)).toBe(false);
    expect(existsSync(looseFresh)).toBe(true);
  });

  it('refuses a directory it cannot create, naming the variable', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    // A path below a regular file cannot be created, whoever runs the test (root ignores modes).
    await expect(prepareSpoolDir(join(file, 'spool'))).rejects.toThrow(new SpoolDirError());
    expect(new SpoolDirError().message).toBe('RESULT_SPOOL_DIR: cannot be created or written');
  });
});

describe(processAlive.name, () => {
  it('tells a running process from one that ended', () => {
    expect(processAlive(process.pid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(processAlive(ended)).toBe(false);
  });
});
