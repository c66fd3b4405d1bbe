import type { Readable } from 'node:stream';

/**
 * Reads the result objects the Worker wrote (the base64 text of the encrypted result), by the
 * `resultPath` the job record names. Used only by `GET /v1/fetcher/{id}/result`.
 */
export interface ResultReader {
  /**
   * A stream of the stored object's bytes. Rejects with `ResultObjectMissing` when there is no object
   * under that path (expired by the bucket's lifecycle rule, or deleted); any other rejection means
   * the store could not be read.
   */
  open(resultPath: string): Promise<Readable>;
}
export const RESULT_READER = Symbol('ResultReader');

/** No object under the path: the result is gone, not the store. */
export class ResultObjectMissing extends Error {
  constructor() {
    super('no stored result under this path');
    this.name = 'ResultObjectMissing';
  }
}
