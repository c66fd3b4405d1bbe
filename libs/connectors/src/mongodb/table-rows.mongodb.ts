/**
 * One collection's rows from a driver cursor.
 * The driver cursor runs in `raw` mode and fetches batches of 256; each document is decoded here,
 * on its own, so one that cannot be decoded is skipped instead of failing the table.
 */
import { MongoServerError } from 'mongodb';
import type { Row } from '@fetcher/engine';
import { statementTimeout } from '../common/abort';
import type { TableRows } from '../common/table-cursor';
import { decodeDocument, mapDocument } from './value-mapping.mongodb';

/** What is needed from a driver cursor: items are raw BSON bytes (or, defensively, documents). */
export interface DocumentSource {
  next(): Promise<unknown>;
  close(): Promise<void>;
}

/** The server's structured code for "operation exceeded time limit" (maxTimeMS). */
const MAX_TIME_MS_EXPIRED = 50;

export class MongoTableRows implements TableRows {
  constructor(private readonly source: DocumentSource) {}

  async next(): Promise<Row | null> {
    for (;;) {
      let item: unknown;
      try {
        item = await this.source.next();
      } catch (error) {
        throw error instanceof MongoServerError && error.code === MAX_TIME_MS_EXPIRED ? statementTimeout(error) : error;
      }
      if (item === null || item === undefined) return null;
      const row = item instanceof Uint8Array ? decodeDocument(item) : mapDocument(item);
      if (row !== undefined) return row; // else: a document that cannot be decoded is skipped
    }
  }

  /** Kills the server cursor when it is still open; idempotent (the driver's close is). */
  close(): Promise<void> {
    return this.source.close();
  }
}
