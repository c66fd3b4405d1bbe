import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReplayableBody, ResultStore } from '../ports/result-store.port';

/** A store under test, and a way to read what is visible under a key (`undefined`: nothing). */
export interface ResultStoreUnderTest {
  readonly store: ResultStore;
  read(key: string): Promise<Buffer | undefined>;
}

/** S3's smallest part but the last. */
const MIN_PART = 5 * 1024 * 1024;

const streamed = (bytes: Buffer): ReplayableBody => ({ length: bytes.length, open: () => Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]) });

/**
 * What every ResultStore must do, run against S3 (s3rver), the embedded filesystem store and the
 * specs' in-memory store alike: bytes stored as given, and nothing visible under a key until the put
 * or the multipart completion succeeds. `make` may share one bucket or directory between tests:
 * every test writes keys of its own.
 */
export function resultStoreContract(
  make: () => ResultStoreUnderTest | Promise<ResultStoreUnderTest>,
  /** `aborts: false` for a test server that does not implement aborting a multipart upload (s3rver). */
  options: { aborts?: boolean } = {},
): void {
  let sut: ResultStoreUnderTest;
  let key: string;
  beforeEach(async () => {
    sut = await make();
    key = `acme/external-data/${randomUUID()}.json`;
  });

  it('stores a put body byte for byte, and a second put replaces it', async () => {
    const body = Buffer.from('QUJD'.repeat(1000));
    await sut.store.putObject(key, body);
    expect((await sut.read(key))?.equals(body)).toBe(true);
    await sut.store.putObject(key, Buffer.from('RUZH'));
    expect((await sut.read(key))?.toString()).toBe('RUZH');
  });

  it('assembles a multipart upload in part order, visible only once completed', async () => {
    const id = await sut.store.createMultipart(key);
    const part1 = Buffer.alloc(MIN_PART, 'A');
    const part2 = Buffer.from('tail');
    const e2 = await sut.store.uploadPart(key, id, 2, part2);
    const e1 = await sut.store.uploadPart(key, id, 1, part1);
    expect(await sut.read(key)).toBeUndefined();
    await sut.store.completeMultipart(key, id, [{ partNumber: 1, etag: e1 }, { partNumber: 2, etag: e2 }]);
    expect((await sut.read(key))?.equals(Buffer.concat([part1, part2]))).toBe(true);
  });

  if (options.aborts !== false) {
    it('leaves nothing under the key after an abort', async () => {
      const id = await sut.store.createMultipart(key);
      await sut.store.uploadPart(key, id, 1, Buffer.from('x'));
      await sut.store.abortMultipart(key, id);
      expect(await sut.read(key)).toBeUndefined();
    });
  }

  it('stores streamed bodies byte for byte, as one object and as parts, when it takes streams', async () => {
    const store = sut.store;
    if (!store.putObjectFrom || !store.uploadPartFrom) {
      // A store without the streaming forms must have neither: the sink picks one form for both.
      expect([typeof store.putObjectFrom, typeof store.uploadPartFrom]).toEqual(['undefined', 'undefined']);
      return;
    }
    const small = Buffer.from('QUJD'.repeat(3000));
    await store.putObjectFrom(key, streamed(small));
    expect((await sut.read(key))?.equals(small)).toBe(true);
    const parted = `${key}.parts`;
    const id = await sut.store.createMultipart(parted);
    const part1 = Buffer.alloc(MIN_PART, 'B');
    const e1 = await store.uploadPartFrom(parted, id, 1, streamed(part1));
    const e2 = await store.uploadPartFrom(parted, id, 2, streamed(Buffer.from('end')));
    await sut.store.completeMultipart(parted, id, [{ partNumber: 1, etag: e1 }, { partNumber: 2, etag: e2 }]);
    expect((await sut.read(parted))?.equals(Buffer.concat([part1, Buffer.from('end')]))).toBe(true);
  });
}
