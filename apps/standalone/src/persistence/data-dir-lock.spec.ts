import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@fetcher/platform';
import { LOCK_FILE, lockDataDir } from './data-dir-lock';

describe(lockDataDir.name, () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const at = (iso: string) => () => new Date(iso);
  const running = (...pids: number[]) => (pid: number) => pids.includes(pid);

  it('writes a private lock file naming the owner, and removes it on release', async () => {
    const lock = await lockDataDir(dir, { pid: 4242, host: 'box', now: at('2026-01-02T03:04:05.000Z') });
    const path = join(dir, LOCK_FILE);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ pid: 4242, host: 'box', startedAt: '2026-01-02T03:04:05.000Z' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]); // no staging file left behind
    await lock.release();
    await lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a second process while the first runs, naming its pid, host and start, and the way out', async () => {
    await lockDataDir(dir, { pid: 100, host: 'box', now: at('2026-01-02T03:04:05.000Z') });
    const second = lockDataDir(dir, { pid: 200, host: 'box', isRunning: running(100) });
    await expect(second).rejects.toThrow(ConfigError);
    await expect(lockDataDir(dir, { pid: 200, host: 'box', isRunning: running(100) })).rejects.toMatchObject({
      problems: [`FETCHER_DATA_DIR: ${dir} is in use by another Fetcher process (pid 100 on box, started 2026-01-02T03:04:05.000Z); stop it, or start this one with another FETCHER_DATA_DIR`],
    });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 100 });
  });

  it('refuses a second start in the same process', async () => {
    await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(/is in use by another Fetcher process \(pid \d+ on /);
  });

  it('takes over the lock of a process that no longer runs', async () => {
    await lockDataDir(dir, { pid: 100, host: 'box' });
    const lock = await lockDataDir(dir, { pid: 200, host: 'box', isRunning: running() });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 200, host: 'box' });
    await lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('takes over a lock file that cannot be read as one', async () => {
    writeFileSync(join(dir, LOCK_FILE), 'not json');
    await lockDataDir(dir, { pid: 200, host: 'box' });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 200 });
  });

  it('respects a lock written on another host, whose process it cannot check', async () => {
    await lockDataDir(dir, { pid: 100, host: 'other-box' });
    await expect(lockDataDir(dir, { pid: 200, host: 'box', isRunning: running() })).rejects.toThrow(/pid 100 on other-box/);
  });

  it('does not remove a lock that another process took over after this one was presumed dead', async () => {
    const first = await lockDataDir(dir, { pid: 100, host: 'box' });
    await lockDataDir(dir, { pid: 200, host: 'box', isRunning: running() });
    await first.release();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 200 });
  });
});
