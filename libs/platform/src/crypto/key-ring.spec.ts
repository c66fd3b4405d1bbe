import { inspect } from 'node:util';
import { KeyRing } from './key-ring';
import { parseKeyRingEnv } from './key-ring-env';
import { KeyRingError } from './key-ring-error';
import { deriveSubKeys } from './sub-keys';

const keyA = Buffer.alloc(32, 1);
const keyB = Buffer.alloc(48, 2);
const b64 = (b: Buffer) => b.toString('base64');

describe(KeyRing.name, () => {
  const sut = () => KeyRing.create({ current: { version: '2', key: keyB }, previous: [{ version: '1', key: keyA }] });

  it('encrypts with the current version and decrypts by the stored version', () => {
    const ring = sut();
    const sealed = ring.encryptCredential('p@ss');
    expect(sealed.keyVersion).toBe('2');
    expect(ring.decryptCredential(sealed.ciphertext, '2')).toBe('p@ss');

    const old = KeyRing.create({ current: { version: '1', key: keyA } }).encryptCredential('older');
    expect(ring.decryptCredential(old.ciphertext, old.keyVersion)).toBe('older');
  });

  it('refuses an unknown version with "unsupported key version"', () => {
    const { ciphertext } = sut().encryptCredential('x');
    expect(() => sut().decryptCredential(ciphertext, '9')).toThrow(new KeyRingError('unsupported_key_version', 'unsupported key version'));
  });

  it('lists key sets current first and derives them from each master key', () => {
    const ring = sut();
    expect(ring.currentVersion).toBe('2');
    expect(ring.all().map((k) => k.internalHmac)).toEqual([deriveSubKeys(keyB).internalHmac, deriveSubKeys(keyA).internalHmac]);
    expect(ring.current()).toBe(ring.forVersion('2'));
    expect(ring.forVersion('3')).toBeUndefined();
    expect(ring.versions()).toEqual(['2', '1']);
  });

  it('refuses short keys and duplicate versions', () => {
    expect(() => KeyRing.create({ current: { version: '1', key: Buffer.alloc(31) } })).toThrow(expect.objectContaining({ reason: 'invalid_key' }));
    expect(() => KeyRing.create({ current: { version: '1', key: keyA }, previous: [{ version: '1', key: keyB }] }))
      .toThrow(expect.objectContaining({ reason: 'duplicate_version' }));
  });

  it('never prints key material', () => {
    const ring = sut();
    const hex = ring.current().credentials.toString('hex').slice(0, 12);
    for (const text of [inspect(ring, { depth: 10, showHidden: true }), JSON.stringify({ ring }), String(inspect(ring.all()))]) {
      expect(text).not.toContain(hex);
      expect(text).not.toContain(b64(keyB).slice(0, 12));
    }
  });
});

describe(parseKeyRingEnv.name, () => {
  it('builds the ring with the default version "1" and previous keys', () => {
    const result = parseKeyRingEnv({ APP_ENC_KEY: b64(keyB), APP_ENC_KEY_PREVIOUS: ` 0:${b64(keyA)} ` });
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.ring.versions()).toEqual(['1', '0']);
  });

  const short = b64(Buffer.alloc(31, 3));
  it.each([
    ['missing key', { APP_ENC_KEY: '  ' }, ['APP_ENC_KEY: is required']],
    ['short key', { APP_ENC_KEY: short }, ['APP_ENC_KEY: must decode to at least 32 bytes']],
    ['URL-safe alphabet', { APP_ENC_KEY: b64(Buffer.alloc(33, 0xfb)).replace(/\+/g, '-').replace(/\//g, '_') }, ['APP_ENC_KEY: must be standard base64']],
    ['missing padding', { APP_ENC_KEY: b64(Buffer.alloc(32, 9)).replace(/=+$/, '') }, ['APP_ENC_KEY: must be standard base64']],
    ['bad version label', { APP_ENC_KEY: b64(keyA), APP_ENC_KEY_VERSION: 'a:b' }, ['APP_ENC_KEY_VERSION: must not contain spaces, ":" or ","']],
    ['previous entry without version', { APP_ENC_KEY: b64(keyA), APP_ENC_KEY_PREVIOUS: b64(keyB) }, ['APP_ENC_KEY_PREVIOUS: entry 1 must be <version>:<base64 key>']],
    ['previous entry too short', { APP_ENC_KEY: b64(keyA), APP_ENC_KEY_PREVIOUS: `0:${b64(keyB)},x:${short}` }, ['APP_ENC_KEY_PREVIOUS: entry 2 must decode to at least 32 bytes']],
    ['previous repeats current', { APP_ENC_KEY: b64(keyA), APP_ENC_KEY_PREVIOUS: `1:${b64(keyB)}` }, ['APP_ENC_KEY_PREVIOUS: entry 1 repeats a key version already on the ring']],
    ['previous repeats previous', { APP_ENC_KEY: b64(keyA), APP_ENC_KEY_VERSION: '3', APP_ENC_KEY_PREVIOUS: `1:${b64(keyB)},1:${b64(keyB)}` }, ['APP_ENC_KEY_PREVIOUS: entry 2 repeats a key version already on the ring']],
    ['everything at once', { APP_ENC_KEY: short, APP_ENC_KEY_PREVIOUS: 'x:%%' }, ['APP_ENC_KEY: must decode to at least 32 bytes', 'APP_ENC_KEY_PREVIOUS: entry 1 must be standard base64']],
  ])('reports %s by variable, never by value', (_name, env, problems) => {
    const result = parseKeyRingEnv(env);
    expect(result).toEqual({ ok: false, problems });
    for (const value of Object.values(env)) if (value.trim().length > 4) expect(JSON.stringify(result)).not.toContain(value.trim());
  });
});
