import { randomBytes, randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { runCli } from '../cli';
import { EXIT } from '../cli-error';
import { loadCliConfig } from '../config/cli.config';
import { capturedIo } from '../testing/captured-io';
import { startS3rver } from '../testing/s3rver';
import { storedResult } from '../testing/stored-result';

describe('fetcher result decrypt against s3rver', () => {
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let client: S3Client;
  const bucket = `cli-it-${randomBytes(4).toString('hex')}`;
  const prefix = `it-${randomBytes(3).toString('hex')}/`;
  const master = randomBytes(32);
  const document = JSON.stringify({ demo: { orders: Array.from({ length: 2000 }, (_, i) => ({ id: i, total: `${i}.50` })) } });
  const stored = storedResult(master, document);
  const jobId = randomUUID();

  beforeAll(async () => {
    s3 = await startS3rver();
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    // The physical key: the storage prefix plus the tenant key, as the Worker writes it.
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}acme/external-data/${jobId}.json`, Body: Buffer.from(stored.object) }));
  });

  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
  });

  const env = () => ({
    APP_ENC_KEY: master.toString('base64'),
    OBJECT_STORAGE_BUCKET: bucket,
    OBJECT_STORAGE_ENDPOINT: s3.endpoint,
    OBJECT_STORAGE_KEY_PREFIX: prefix,
    OBJECT_STORAGE_USE_PATH_STYLE: 'true',
    OBJECT_STORAGE_ACCESS_KEY_ID: 'S3RVER',
    OBJECT_STORAGE_SECRET_KEY: 'S3RVER',
  });
  const run = async (argv: string[]) => {
    const io = capturedIo();
    const code = await runCli(argv, () => loadCliConfig(env(), process.cwd()), io);
    return { code, out: io.out(), err: io.err() };
  };

  it('reads the object by job id and tenant, checks the HMAC and prints the document', async () => {
    expect(await run(['result', 'decrypt', jobId, '--tenant', 'acme', '--hmac', stored.hmac])).toEqual({ code: EXIT.ok, out: `${document}\n`, err: '' });
  });

  it('verifies the object without printing it', async () => {
    const { code, out } = await run(['result', 'verify', jobId, '--tenant', 'acme', '--hmac', stored.hmac]);
    expect(code).toBe(EXIT.ok);
    expect(out).toBe(`ok: s3://${bucket}/${prefix}acme/external-data/${jobId}.json is authentic and matches its HMAC (${document.length} bytes of JSON)\n`);
  });

  it('exits 1 without output on an HMAC mismatch', async () => {
    expect(await run(['result', 'decrypt', jobId, '--tenant', 'acme', '--hmac', 'cd'.repeat(32)])).toMatchObject({ code: EXIT.integrity, out: '' });
  });

  it('exits 3 naming the object when there is none', async () => {
    const other = randomUUID();
    expect(await run(['result', 'decrypt', other, '--hmac', stored.hmac])).toEqual({
      code: EXIT.failure,
      out: '',
      err: `fetcher: no result at s3://${bucket}/${prefix}external-data/${other}.json\n`,
    });
  });
});
