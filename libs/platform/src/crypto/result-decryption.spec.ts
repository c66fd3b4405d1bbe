import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { deriveSubKeys } from '../crypto/sub-keys';
import { storedResult } from '../testing/stored-result';
import { decryptResult, hmacMatches, ResultIntegrityError } from './result-decryption';

const master = randomBytes(32);
const keys = deriveSubKeys(master);

/** Feeds `text` in chunks of the given sizes (cycled), as a network body would arrive. */
function chunked(text: string, sizes: readonly number[]): Readable {
  const parts: string[] = [];
  for (let i = 0, n = 0; i < text.length; n++) {
    const size = sizes[n % sizes.length];
    parts.push(text.slice(i, i + size));
    i += size;
  }
  return Readable.from(parts.map((p) => Buffer.from(p, 'latin1')));
}

function collector(): { sink: Writable; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  return {
    sink: new Writable({ write: (c: Buffer, _e, done) => (chunks.push(c), done()) }),
    bytes: () => Buffer.concat(chunks),
  };
}

async function failureOf(promise: Promise<unknown>): Promise<ResultIntegrityError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ResultIntegrityError);
  return error as ResultIntegrityError;
}

describe(decryptResult.name, () => {
  it.each([
    ['one chunk', [1 << 30]],
    ['single characters', [1]],
    ['odd sizes that split the nonce, quanta and tag', [3, 7, 5, 13]],
    ['64 KiB chunks', [65_536]],
  ])('decrypts and hashes a result delivered as %s', async (_name, sizes) => {
    const plaintext = JSON.stringify({ demo: { customers: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `c${i}` })) } });
    const { object, hmac } = storedResult(master, plaintext);
    const out = collector();
    const result = await decryptResult(chunked(object, sizes), out.sink, keys);
    expect(out.bytes().toString('utf8')).toBe(plaintext);
    expect(result).toEqual({ hmac, plaintextBytes: Buffer.byteLength(plaintext) });
  });

  it('decrypts an empty document and ignores whitespace such as a trailing newline', async () => {
    const { object, hmac } = storedResult(master, '');
    const out = collector();
    const spaced = `${object.slice(0, 10)}\n${object.slice(10)}\n`;
    await expect(decryptResult(chunked(spaced, [4]), out.sink, keys)).resolves.toEqual({ hmac, plaintextBytes: 0 });
  });

  it('decrypts several MiB with bounded chunks', async () => {
    const plaintext = randomBytes(3 * 1024 * 1024);
    const { object, hmac } = storedResult(master, plaintext);
    const out = collector();
    await expect(decryptResult(chunked(object, [65_536]), out.sink, keys)).resolves.toMatchObject({ hmac });
    expect(out.bytes().equals(plaintext)).toBe(true);
  });

  it('fails authentication when one ciphertext byte changed', async () => {
    const { object } = storedResult(master, '{"a":1}');
    const raw = Buffer.from(object, 'base64');
    raw[14] = raw[14] ^ 0x01;
    const error = await failureOf(decryptResult(Readable.from([raw.toString('base64')]), collector().sink, keys));
    expect(error.message).toMatch(/failed authentication/);
  });

  it('fails authentication under another master key', async () => {
    const { object } = storedResult(master, '{"a":1}');
    const other = deriveSubKeys(randomBytes(32));
    await failureOf(decryptResult(Readable.from([object]), collector().sink, other));
  });

  it.each([
    ['text outside the base64 alphabet', 'abc*defg'],
    ['a truncated quantum', 'QUJD' + 'QQ'],
    ['text after the padding', 'QQ==QUJD'],
    ['too few bytes for a nonce and a tag', Buffer.alloc(20).toString('base64')],
  ])('refuses %s', async (_name, text) => {
    await failureOf(decryptResult(Readable.from([text]), collector().sink, keys));
  });
});

describe(hmacMatches.name, () => {
  it('compares hex HMACs in any case, and refuses empty or different lengths', () => {
    const hex = 'ab'.repeat(32);
    expect(hmacMatches(hex, hex.toUpperCase())).toBe(true);
    expect(hmacMatches(hex, 'ab'.repeat(31))).toBe(false);
    expect(hmacMatches('', '')).toBe(false);
    expect(hmacMatches(hex, 'cd'.repeat(32))).toBe(false);
  });
});
