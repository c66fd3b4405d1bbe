import { createCipheriv, randomBytes } from 'node:crypto';
import { openEnvelope, sealEnvelope } from './aead-envelope';
import { KeyRingError } from './key-ring-error';

describe('AES-256-GCM envelope', () => {
  const key = Buffer.alloc(32, 7);

  it('round-trips text and bytes', () => {
    expect(openEnvelope(key, sealEnvelope(key, 'pässword')).toString('utf8')).toBe('pässword');
    const bytes = randomBytes(1000);
    expect(openEnvelope(key, sealEnvelope(key, bytes))).toEqual(bytes);
    expect(openEnvelope(key, sealEnvelope(key, ''))).toEqual(Buffer.alloc(0));
  });

  it('lays the envelope out as base64(nonce12 || ciphertext || tag16) with a fresh nonce each time', () => {
    const a = Buffer.from(sealEnvelope(key, 'abc'), 'base64');
    const b = Buffer.from(sealEnvelope(key, 'abc'), 'base64');
    expect(a).toHaveLength(12 + 3 + 16);
    expect(a.subarray(0, 12).equals(b.subarray(0, 12))).toBe(false);
  });

  it('opens an envelope built independently with a known nonce (the stored format of the original)', () => {
    const nonce = Buffer.from('0102030405060708090a0b0c', 'hex');
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    const ct = Buffer.concat([cipher.update('secret', 'utf8'), cipher.final()]);
    const envelope = Buffer.concat([nonce, ct, cipher.getAuthTag()]).toString('base64');
    expect(openEnvelope(key, envelope).toString('utf8')).toBe('secret');
  });

  it.each([
    ['a flipped ciphertext bit', (raw: Buffer) => { raw[13] = raw[13] ^ 1; }],
    ['a flipped tag bit', (raw: Buffer) => { raw[raw.length - 1] = raw[raw.length - 1] ^ 1; }],
    ['a flipped nonce bit', (raw: Buffer) => { raw[0] = raw[0] ^ 1; }],
  ])('detects %s', (_name, tamper) => {
    const raw = Buffer.from(sealEnvelope(key, 'secret value'), 'base64');
    tamper(raw);
    expect(() => openEnvelope(key, raw.toString('base64'))).toThrow(expect.objectContaining({ reason: 'decryption_failed' }));
  });

  it('refuses the wrong key, short input, non-base64 and a key of the wrong size', () => {
    const envelope = sealEnvelope(key, 'x');
    expect(() => openEnvelope(Buffer.alloc(32, 8), envelope)).toThrow(KeyRingError);
    expect(() => openEnvelope(key, Buffer.alloc(27).toString('base64'))).toThrow(expect.objectContaining({ reason: 'malformed_envelope' }));
    expect(() => openEnvelope(key, 'not base64!')).toThrow(expect.objectContaining({ reason: 'malformed_envelope' }));
    expect(() => sealEnvelope(Buffer.alloc(16), 'x')).toThrow(expect.objectContaining({ reason: 'invalid_key' }));
  });
});
