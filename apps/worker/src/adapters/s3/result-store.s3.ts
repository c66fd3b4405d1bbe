import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { type ReplayableBody, type ResultStore, ResultStoreRefused, ResultStoreThrottled } from '../../ports/result-store.port';
import { reopenBodyOnRetry } from './replayable-body';

export interface S3Settings {
  readonly endpoint?: string;
  readonly region: string;
  readonly bucket: string;
  readonly forcePathStyle: boolean;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * Checksums only when an operation requires them: with the SDK's default, streamed bodies are sent
 * with aws-chunked framing, which some S3-compatible stores save as part of the object.
 */
export function createS3Client(settings: S3Settings): S3Client {
  const client = new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: { ...settings.credentials } } : {}),
  });
  // The signer would otherwise hash every uploaded byte with SHA-256 (a second pass over the whole
  // result, on the job's CPU). The bodies are ciphertext whose GCM tag already detects any change,
  // so object bodies are sent as UNSIGNED-PAYLOAD, which S3 accepts for these operations.
  client.middlewareStack.add(
    (next, context) => (args) => {
      const request = args.request as { headers?: Record<string, string> } | undefined;
      if (UNSIGNED_OPERATIONS.has(String(context.commandName)) && request?.headers) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'fetcherUnsignedPayload' },
  );
  return client;
}

const UNSIGNED_OPERATIONS = new Set(['PutObjectCommand', 'UploadPartCommand']);

/**
 * A throttling answer (503 Slow Down, 429) left once the SDK stops retrying becomes
 * `ResultStoreThrottled` with the answer's `Retry-After`, so the uploader waits as asked and the job
 * can say why it failed. The SDK never retries a request whose body is a stream (PutObject and
 * UploadPart from the spool): for those the first 503 lands here.
 */
async function throttled<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof S3ServiceException) {
      const status = error.$metadata.httpStatusCode;
      if (error.$retryable?.throttling === true || status === 503 || status === 429) throw new ResultStoreThrottled(retryAfterMs(error), { cause: error });
    }
    throw error;
  }
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(error: S3ServiceException, now = Date.now()): number | undefined {
  const headers = (error.$response as { headers?: Record<string, string | undefined> } | undefined)?.headers ?? {};
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after')?.[1]?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The SDK's per-call options: the abort signal, when there is one. */
function sendOptions(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}

/** Results in one bucket: octet-stream objects, no user metadata (expiry is the bucket's lifecycle rule). */
export class S3ResultStore implements ResultStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async putObject(key: string, body: Buffer, signal?: AbortSignal): Promise<void> {
    await throttled(
      this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length, ContentType: 'application/octet-stream' }), sendOptions(signal)),
    );
  }

  async putObjectFrom(key: string, body: ReplayableBody, signal?: AbortSignal): Promise<void> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body.open(), ContentLength: body.length, ContentType: 'application/octet-stream' });
    reopenBodyOnRetry(command, body);
    await throttled(this.client.send(command, sendOptions(signal)));
  }

  async createMultipart(key: string, signal?: AbortSignal): Promise<string> {
    const out = await throttled(this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: 'application/octet-stream' }), sendOptions(signal)));
    if (!out.UploadId) throw new Error('object storage returned no upload id');
    return out.UploadId;
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer, signal?: AbortSignal): Promise<string> {
    const out = await throttled(
      this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body, ContentLength: body.length }), sendOptions(signal)),
    );
    if (!out.ETag) throw new Error('object storage returned no part ETag');
    return out.ETag;
  }

  async uploadPartFrom(key: string, uploadId: string, partNumber: number, body: ReplayableBody, signal?: AbortSignal): Promise<string> {
    const command = new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body.open(), ContentLength: body.length });
    reopenBodyOnRetry(command, body);
    const out = await throttled(this.client.send(command, sendOptions(signal)));
    if (!out.ETag) throw new Error('object storage returned no part ETag');
    return out.ETag;
  }

  async completeMultipart(key: string, uploadId: string, parts: readonly { partNumber: number; etag: string }[], signal?: AbortSignal): Promise<void> {
    await throttled(
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
        }),
        sendOptions(signal),
      ),
    );
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      // A 4xx (no such upload; or, on s3rver, no such operation) is final; 5xx and network errors are not.
      throw error instanceof S3ServiceException && error.$fault === 'client' ? new ResultStoreRefused({ cause: error }) : error;
    }
  }

  /** Readiness: the bucket exists and we may use it. */
  async headBucket(signal: AbortSignal): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: signal });
  }
}
