import type { BsonDocument } from '../bson/bson-values';

/** One decoded request: the command document and how to answer it. */
export interface IncomingMessage {
  readonly requestId: number;
  readonly opCode: number;
  /** Target database: `$db` for OP_MSG, the namespace prefix for OP_QUERY. */
  readonly database: string;
  readonly command: BsonDocument;
  /** OP_MSG `moreToCome`: the client expects no reply (unacknowledged write). */
  readonly moreToCome: boolean;
}
