import type { BsonDocument } from '../bson/bson-values';

/** One index as `listIndexes` shows it; unknown options are kept so they are listed back. */
export interface IndexSpec extends BsonDocument {
  v: number;
  key: BsonDocument;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: BsonDocument;
}

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/** The options that make two indexes different beyond their key pattern. */
export const COMPARED_OPTIONS = ['unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'collation'] as const;
