import { isPlainDocument, type BsonDocument } from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError } from '../commands/command-error';
import { compileFilter, type Matcher } from '../query/matcher';
import { sortDocuments } from '../query/sort';
import type { Collection } from '../storage/collection';
import { applyUpdate } from './apply-update';
import type { UpdateContext } from './update-context';
import { seedFromFilter, withIdFirst } from './upsert-seed';

export interface UpdateStatement {
  readonly filter: BsonDocument | undefined;
  readonly update: unknown;
  readonly upsert: boolean;
  readonly multi: boolean;
  readonly arrayFilters?: unknown;
  /** findAndModify's sort: which matching document is updated. */
  readonly sort?: BsonDocument;
}

export interface UpdateResult {
  readonly matched: number;
  readonly modified: number;
  readonly upsertedId?: unknown;
  /** For a single-document update: the document before and after (absent when nothing matched). */
  readonly before?: BsonDocument;
  readonly after?: BsonDocument;
}

/**
 * Runs one update statement. Unique indexes are checked per document before it is stored, so a
 * DuplicateKey leaves that document unchanged (earlier documents of a multi-update stay updated,
 * as in MongoDB).
 */
export function executeUpdate(collection: Collection, statement: UpdateStatement): UpdateResult {
  const filter = compileFilter(statement.filter);
  const arrayFilters = compileArrayFilters(statement.arrayFilters);
  let targets = sortDocuments(collection.matching(statement.filter), statement.sort);
  if (!statement.multi) targets = targets.slice(0, 1);
  if (targets.length > 0) {
    let modified = 0;
    let last: { before: BsonDocument; after: BsonDocument } | undefined;
    for (const doc of targets) {
      const next = applyUpdate(doc, statement.update, { filter, arrayFilters, isInsert: false, original: doc });
      if (canonicalKey(next) !== canonicalKey(doc)) {
        collection.replace(doc, next);
        modified++;
      }
      last = { before: doc, after: next };
    }
    return { matched: targets.length, modified, ...(statement.multi ? {} : last) };
  }
  if (!statement.upsert) return { matched: 0, modified: 0 };
  const seed = seedFromFilter(statement.filter);
  const context: UpdateContext = { filter, arrayFilters, isInsert: true, original: seed };
  const inserted = withIdFirst(applyUpdate(seed, statement.update, context));
  collection.insert(inserted);
  return { matched: 0, modified: 0, upsertedId: inserted._id, after: inserted };
}

function compileArrayFilters(value: unknown): Map<string, Matcher> {
  const filters = new Map<string, Matcher>();
  if (value === undefined || value === null) return filters;
  if (!Array.isArray(value)) throw new CommandError('TypeMismatch', 'arrayFilters must be an array');
  for (const filter of value) {
    const identifier = isPlainDocument(filter) ? Object.keys(filter)[0]?.split('.')[0] : undefined;
    if (identifier === undefined || identifier.length === 0) {
      throw new CommandError('FailedToParse', 'Cannot use an expression without a top-level field name in arrayFilters');
    }
    if (filters.has(identifier)) {
      throw new CommandError('FailedToParse', `Found multiple array filters with the same top-level field name ${identifier}`);
    }
    filters.set(identifier, compileFilter(filter));
  }
  return filters;
}
