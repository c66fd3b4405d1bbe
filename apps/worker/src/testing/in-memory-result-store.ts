import type { ReplayableBody, ResultStore } from '../ports/result-store.port';

async function readAll(body: ReplayableBody): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body.open()) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  if (bytes.length !== body.length) throw new Error(`body is ${bytes.length} bytes, announced ${body.length}`);
  return bytes;
}

/**
 * Objects and multipart uploads in memory; `failNext` makes the next N calls of an operation fail.
 * With `streaming` (the default) it also takes streamed bodies, as the S3 store does; without, it
 * takes Buffers only, as the standalone service's filesystem store does. Calls are recorded under
 * the same names either way.
 */
export class InMemoryResultStore implements ResultStore {
  readonly objects = new Map<string, Buffer>();
  readonly uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  readonly calls: string[] = [];
  aborted = 0;
  readonly failures = new Map<string, number>();
  #ids = 0;
  readonly putObjectFrom?: (key: string, body: ReplayableBody) => Promise<void>;
  readonly uploadPartFrom?: (key: string, uploadId: string, partNumber: number, body: ReplayableBody) => Promise<string>;

  constructor(options: { streaming?: boolean } = {}) {
    if (options.streaming === false) return;
    this.putObjectFrom = async (key, body) => this.putObject(key, await readAll(body));
    this.uploadPartFrom = async (key, uploadId, partNumber, body) => this.uploadPart(key, uploadId, partNumber, await readAll(body));
  }

  failNext(operation: 'putObject' | 'createMultipart' | 'uploadPart' | 'completeMultipart' | 'abortMultipart', times = 1): void {
    this.failures.set(operation, times);
  }

  putObject(key: string, body: Buffer): Promise<void> {
    this.#call('putObject');
    this.objects.set(key, Buffer.from(body));
    return Promise.resolve();
  }

  createMultipart(key: string): Promise<string> {
    this.#call('createMultipart');
    const id = `upload-${++this.#ids}`;
    this.uploads.set(id, { key, parts: new Map() });
    return Promise.resolve(id);
  }

  uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer, _signal?: AbortSignal): Promise<string> {
    this.#call('uploadPart');
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.key !== key) return Promise.reject(new Error('no such upload'));
    upload.parts.set(partNumber, Buffer.from(body));
    return Promise.resolve(`etag-${partNumber}`);
  }

  completeMultipart(key: string, uploadId: string, parts: readonly { partNumber: number; etag: string }[]): Promise<void> {
    this.#call('completeMultipart');
    const upload = this.uploads.get(uploadId);
    if (!upload) return Promise.reject(new Error('no such upload'));
    this.objects.set(key, Buffer.concat(parts.map((p) => upload.parts.get(p.partNumber) as Buffer)));
    this.uploads.delete(uploadId);
    return Promise.resolve();
  }

  abortMultipart(_key: string, uploadId: string): Promise<void> {
    this.#call('abortMultipart');
    this.aborted++;
    this.uploads.delete(uploadId);
    return Promise.resolve();
  }

  #call(operation: string): void {
    this.calls.push(operation);
    const left = this.failures.get(operation) ?? 0;
    if (left > 0) {
      this.failures.set(operation, left - 1);
      throw new Error(`${operation} failed`);
    }
  }
}
