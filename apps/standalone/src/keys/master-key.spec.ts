import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@fetcher/platform';
import { loadOrCreateMasterKey, MASTER_KEY_FILE } from './master-key';

describe(loadOrCreateMasterKey.name, () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates 32 random bytes on the first start, owner-only, and reads the same key afterwards', async () => {
    const first = await loadOrCreateMasterKey(dir, undefined);
    expect(first.origin).toBe('generated');
    expect(Buffer.from(first.base64, 'base64')).toHaveLength(32);
    expect(statSync(join(dir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, MASTER_KEY_FILE), 'utf8')).toBe(`${first.base64}\n`);
    expect(await loadOrCreateMasterKey(dir, undefined)).toEqual({ base64: first.base64, origin: 'data directory' });
  });

  it('uses APP_ENC_KEY when it is set, and writes nothing', async () => {
    expect(await loadOrCreateMasterKey(dir, 'a2V5')).toEqual({ base64: 'a2V5', origin: 'APP_ENC_KEY' });
    expect(() => statSync(join(dir, MASTER_KEY_FILE))).toThrow();
  });

  it('refuses a key file that others can read, naming the file and never the key', async () => {
    const { base64 } = await loadOrCreateMasterKey(dir, undefined);
    chmodSync(join(dir, MASTER_KEY_FILE), 0o644);
    const error = await loadOrCreateMasterKey(dir, undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toContain('master.key must be readable by its owner only');
    expect(String((error as Error).message)).not.toContain(base64);
  });
});
