import { GetObjectCommand, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { failure } from '../cli-error';
import type { ObjectStorageConfig } from '../config/cli.config';
import type { ResultSource } from './result-source';

/**
 * The Worker's client settings. `WHEN_REQUIRED` matters for S3-compatible stores that do not speak
 * the SDK's checksum framing: with the defaults, some of them answer with bodies that do not match.
 */
export function s3Client(config: ObjectStorageConfig): S3Client {
  return new S3Client({
    region: config.region,
    ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.credentials ? { credentials: { ...config.credentials } } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

/** One object, at the storage prefix plus the result key. */
export class S3ResultSource implements ResultSource {
  readonly description: string;
  readonly #key: string;

  constructor(private readonly client: S3Client, private readonly config: ObjectStorageConfig, key: string) {
    this.#key = `${config.keyPrefix}${key.replace(/^\/+/, '')}`;
    this.description = `s3://${config.bucket}/${this.#key}`;
  }

  async open(): Promise<Readable> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.#key }));
      if (!(answer.Body instanceof Readable)) throw failure(`no readable body for ${this.description}`);
      return answer.Body;
    } catch (error) {
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.name === 'NoSuchKey')) {
        throw failure(`no result at ${this.description}`);
      }
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 403) {
        throw failure(`access denied to ${this.description}`);
      }
      if (error instanceof S3ServiceException) throw failure(`object storage refused ${this.description} (${error.name})`);
      if (error instanceof Error && 'exitCode' in error) throw error;
      throw failure(`object storage unreachable for ${this.description}`);
    }
  }
}
