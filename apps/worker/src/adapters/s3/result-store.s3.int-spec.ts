import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ResultStoreRefused } from '../../ports/result-store.port';
import { resultStoreContract } from '../../testing/result-store.contract';
import { createS3Client, S3ResultStore } from './result-store.s3';

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

describe('S3ResultStore against s3rver', () => {
  let dir: string;
  let server: { close(): Promise<void> };
  let client: S3Client;
  let sut: S3ResultStore;
  const bucket = `results-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3-int-'));
    const s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
    const { port } = await s3rver.run();
    server = s3rver;
    client = createS3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', bucket, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    sut = new S3ResultStore(client, bucket);
  });

  afterAll(async () => {
    client?.destroy();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = async (key: string) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
  const keys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key);

  describe('the result store contract', () => {
    // s3rver answers AbortMultipartUpload with MethodNotAllowed: the abort case runs against the
    // embedded and in-memory stores only.
    resultStoreContract(() => ({ store: sut, read: (key) => read(key).catch(() => undefined) }), { aborts: false });
  });

  it('stores a Buffer byte for byte (no checksum framing)', async () => {
    const body = Buffer.from('QUJD'.repeat(1000));
    await sut.putObject('a/external-data/1.json', body);
    expect((await read('a/external-data/1.json')).equals(body)).toBe(true);
  });

  it('assembles a multipart upload in part order, visible only once completed', async () => {
    const key = 'a/external-data/2.json';
    const id = await sut.createMultipart(key);
    const part1 = Buffer.alloc(5 * 1024 * 1024, 'A');
    const part2 = Buffer.from('tail');
    const e2 = await sut.uploadPart(key, id, 2, part2);
    const e1 = await sut.uploadPart(key, id, 1, part1);
    expect(await keys()).not.toContain(key);
    await sut.completeMultipart(key, id, [{ partNumber: 1, etag: e1 }, { partNumber: 2, etag: e2 }]);
    expect((await read(key)).equals(Buffer.concat([part1, part2]))).toBe(true);
  });

  it('stores streamed bodies byte for byte, as one object and as parts', async () => {
    const streamed = (bytes: Buffer) => ({ length: bytes.length, open: () => Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]) });
    const small = Buffer.from('QUJD'.repeat(3000));
    await sut.putObjectFrom('a/external-data/4.json', streamed(small));
    expect((await read('a/external-data/4.json')).equals(small)).toBe(true);

    const key = 'a/external-data/5.json';
    const id = await sut.createMultipart(key);
    const part1 = Buffer.alloc(5 * 1024 * 1024, 'B');
    const part2 = Buffer.from('streamed tail');
    const e1 = await sut.uploadPartFrom(key, id, 1, streamed(part1));
    const e2 = await sut.uploadPartFrom(key, id, 2, streamed(part2));
    await sut.completeMultipart(key, id, [{ partNumber: 1, etag: e1 }, { partNumber: 2, etag: e2 }]);
    expect((await read(key)).equals(Buffer.concat([part1, part2]))).toBe(true);
  });

  it('an unfinished multipart upload leaves no object, aborted or not', async () => {
    const key = 'a/external-data/3.json';
    const id = await sut.createMultipart(key);
    await sut.uploadPart(key, id, 1, Buffer.from('partial'));
    // s3rver does not implement AbortMultipartUpload (it answers 405); real S3 and MinIO do. The
    // refusal is final (not retried), and best-effort: the parts are never visible as an object.
    const refusal = await sut.abortMultipart(key, id).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(ResultStoreRefused);
    expect((refusal as Error).cause).toMatchObject({ name: 'MethodNotAllowed' });
    expect(await keys()).not.toContain(key);
  });

  it('answers HeadBucket for readiness', async () => {
    await expect(sut.headBucket(AbortSignal.timeout(2_000))).resolves.toBeUndefined();
    await expect(new S3ResultStore(client, 'no-such-bucket').headBucket(AbortSignal.timeout(2_000))).rejects.toBeDefined();
  });
});
