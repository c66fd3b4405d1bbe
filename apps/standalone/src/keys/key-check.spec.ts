import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, KeyRing, deriveSubKeys } from '@fetcher/platform';
import { checkDataDirKey, KEY_CHECK_FILE } from './key-check';
import { MASTER_KEY_FILE } from './master-key';

describe(checkDataDirKey.name, () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'key-check-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const keyA = randomBytes(32);
  const keyB = randomBytes(32);
  const ring = (current: Buffer, previous?: Buffer) =>
    KeyRing.create({ current: { version: previous ? '2' : '1', key: current }, ...(previous ? { previous: [{ version: '1', key: previous }] } : {}) });
  const fromEnv = { origin: 'APP_ENC_KEY' as const };

  it('records a check value on the first start: private, one-way, never the key', async () => {
    expect(await checkDataDirKey(dir, ring(keyA), fromEnv)).toBe('recorded');
    const text = readFileSync(join(dir, KEY_CHECK_FILE), 'utf8');
    expect(JSON.parse(text)).toEqual({ format: 1, keyVersion: '1', check: expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const secret of [keyA, ...Object.values(deriveSubKeys(keyA))]) {
      expect(text).not.toContain(secret.toString('hex'));
      expect(text).not.toContain(secret.toString('base64'));
    }
    expect(statSync(join(dir, KEY_CHECK_FILE)).mode & 0o777).toBe(0o600);
  });

  it('accepts the same key on later starts', async () => {
    await checkDataDirKey(dir, ring(keyA), fromEnv);
    expect(await checkDataDirKey(dir, ring(keyA), fromEnv)).toBe('matched');
  });

  it('refuses another APP_ENC_KEY, saying what is wrong and how to recover, without writing anything', async () => {
    await checkDataDirKey(dir, ring(keyA), fromEnv);
    const before = readFileSync(join(dir, KEY_CHECK_FILE), 'utf8');
    const refused = checkDataDirKey(dir, ring(keyB), fromEnv);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(checkDataDirKey(dir, ring(keyB), fromEnv)).rejects.toMatchObject({
      problems: [expect.stringMatching(/^APP_ENC_KEY: is not the master key this data directory was written with .*Start with the original key; to change keys, set the new one in APP_ENC_KEY and the old one in APP_ENC_KEY_PREVIOUS; or use another FETCHER_DATA_DIR$/)],
    });
    expect(readFileSync(join(dir, KEY_CHECK_FILE), 'utf8')).toBe(before);
  });

  it('names master.key when the generated key file was replaced', async () => {
    await checkDataDirKey(dir, ring(keyA), { origin: 'data directory' });
    await expect(checkDataDirKey(dir, ring(keyB), { origin: 'data directory' })).rejects.toThrow(/FETCHER_DATA_DIR: master\.key: is not the master key/);
  });

  it('accepts a rotation (the recorded key among the previous ones) and moves the check to the new key', async () => {
    await checkDataDirKey(dir, ring(keyA), fromEnv);
    expect(await checkDataDirKey(dir, ring(keyB, keyA), fromEnv)).toBe('rotated');
    expect(await checkDataDirKey(dir, ring(keyB), fromEnv)).toBe('matched');
    await expect(checkDataDirKey(dir, ring(keyA), fromEnv)).rejects.toThrow(ConfigError);
  });

  it('compares a directory from before the check file with its generated master.key', async () => {
    writeFileSync(join(dir, MASTER_KEY_FILE), `${keyA.toString('base64')}\n`, { mode: 0o600 });
    await expect(checkDataDirKey(dir, ring(keyB), fromEnv)).rejects.toThrow(/APP_ENC_KEY: is not the master key/);
    expect(await checkDataDirKey(dir, ring(keyA), fromEnv)).toBe('recorded');
  });

  it('refuses a damaged check file instead of overwriting it', async () => {
    writeFileSync(join(dir, KEY_CHECK_FILE), '{"format":1,"check":"nope"}');
    await expect(checkDataDirKey(dir, ring(keyA), fromEnv)).rejects.toMatchObject({ problems: [expect.stringMatching(/^FETCHER_DATA_DIR: key\.check is damaged; /)] });
  });
});
