import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { deriveSubKeys, SUB_KEY_INFO } from './sub-keys';

// RFC 5869 written out with plain HMAC, independent of node's hkdfSync: an empty salt means a key of
// zeros; for 32 bytes of output only the first block T(1) = HMAC(PRK, info || 0x01) is needed.
function hkdfByHand(master: Buffer, info: string): Buffer {
  const prk = createHmac('sha256', Buffer.alloc(32)).update(master).digest();
  return createHmac('sha256', prk).update(Buffer.concat([Buffer.from(info, 'utf8'), Buffer.from([1])])).digest();
}

describe(deriveSubKeys.name, () => {
  const master = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');

  it.each(Object.entries(SUB_KEY_INFO))('derives %s with info %s as RFC 5869 does', (name, info) => {
    const keys = deriveSubKeys(master) as unknown as Record<string, Buffer>;
    expect(keys[name]).toEqual(hkdfByHand(master, info));
    expect(keys[name]).toHaveLength(32);
  });

  it('pins the credential key for a fixed master key, so a change of derivation is noticed', () => {
    expect(deriveSubKeys(master).credentials.toString('hex')).toBe(hkdfByHand(master, 'fetcher-credentials-v1').toString('hex'));
    expect(new Set(Object.values(deriveSubKeys(master)).map((k: Buffer) => k.toString('hex'))).size).toBe(4);
  });

  it('never prints its key bytes', () => {
    const keys = deriveSubKeys(master);
    const hex = keys.credentials.toString('hex');
    expect(inspect(keys)).toBe('[REDACTED]');
    expect(JSON.stringify({ keys })).toBe('{"keys":"[REDACTED]"}');
    expect(`${inspect({ nested: keys })}`).not.toContain(hex.slice(0, 8));
  });
});
