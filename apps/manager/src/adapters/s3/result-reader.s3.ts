import type { FactoryProvider, OnModuleDestroy } from '@nestjs/common';
import { ConfigError } from '@fetcher/platform';
import { GetObjectCommand, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { MANAGER_CONFIG, type ManagerConfig, type ObjectStorageSettings } from '../../config/manager.config';
import { RESULT_READER, ResultObjectMissing, type ResultReader } from '../../ports/result-reader.port';

/**
 * The Worker's client settings (apps/worker/src/adapters/s3): checksums only when an operation needs
 * them, since some S3-compatible stores do not speak the SDK's default checksum framing.
 */
export function createResultS3Client(settings: ObjectStorageSettings): S3Client {
  return new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: { ...settings.credentials } } : {}),
  });
}

/** Results in the Worker's bucket, at the configured key prefix plus the job's result path, as the Worker writes them. */
export class S3ResultReader implements ResultReader, OnModuleDestroy {
  constructor(
    private readonly client: S3Client,
    private readonly settings: ObjectStorageSettings,
  ) {}

  async open(resultPath: string): Promise<Readable> {
    const key = `${this.settings.keyPrefix}${resultPath}`.replace(/^\/+/, '');
    let body: unknown;
    try {
      body = (await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }))).Body;
    } catch (error) {
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.name === 'NoSuchKey')) throw new ResultObjectMissing();
      throw error;
    }
    if (!(body instanceof Readable)) throw new Error('object storage answered without a readable body');
    return body;
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }
}

/** RESULT_READER on the configured bucket; a host that embeds the object storage binds its own instead. */
export const resultReaderProvider: FactoryProvider<ResultReader> = {
  provide: RESULT_READER,
  inject: [MANAGER_CONFIG],
  useFactory: (config: ManagerConfig) => {
    const storage = config.resultDownload.storage;
    if (!storage) throw new ConfigError(['OBJECT_STORAGE_BUCKET: is required when RESULT_DOWNLOAD_ENABLED is true (this Manager was configured for embedded object storage, and its host bound no result reader)']);
    return new S3ResultReader(createResultS3Client(storage), storage);
  },
};
