import type { BsonDocument } from '../bson/bson-values';
import type { Matcher } from '../query/matcher';

/** What an update needs besides the document: how to resolve `$`, `$[id]`, and insert-only parts. */
export interface UpdateContext {
  /** The statement's filter, compiled; the positional `$` picks the first element it matches. */
  readonly filter: Matcher;
  /** `arrayFilters`, by identifier: `$[elem]` applies where `{elem: <element>}` matches. */
  readonly arrayFilters: ReadonlyMap<string, Matcher>;
  /** True when the update builds an upserted document: `$setOnInsert` applies only then. */
  readonly isInsert: boolean;
  /** The document as it was before this update (for `$`); updates work on a copy. */
  readonly original: BsonDocument;
}
