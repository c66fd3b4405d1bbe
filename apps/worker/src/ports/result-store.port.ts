/**
 * S3-compatible object storage for results. Nothing becomes visible under `key` until `putObject`
 * or `completeMultipart` succeeds; `abortMultipart` discards every uploaded part.
 */
export interface ResultStore {
  putObject(key: string, body: Buffer): Promise<void>;
  createMultipart(key: string): Promise<string>;
  /** Resolves to the part's ETag. */
  uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer): Promise<string>;
  completeMultipart(key: string, uploadId: string, parts: readonly { partNumber: number; etag: string }[]): Promise<void>;
  abortMultipart(key: string, uploadId: string): Promise<void>;
}
export const RESULT_STORE = Symbol('ResultStore');
