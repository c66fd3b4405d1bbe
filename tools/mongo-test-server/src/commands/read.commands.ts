import { compareBson } from '../bson/bson-compare';
import { isTruthy, type BsonDocument } from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { leafValuesAtPath } from '../bson/document-paths';
import { compileProjection } from '../query/projection';
import { sortDocuments } from '../query/sort';
import { numberArg, optionalDocument, targetCollection } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

/** Matching documents after sort, skip and limit (a negative limit counts as its absolute value). */
function select(command: BsonDocument, context: CommandContext, filterField: string): BsonDocument[] {
  const collection = context.storage.collection(context.database, targetCollection(command));
  if (!collection) return [];
  const skip = numberArg(command, 'skip') ?? 0;
  const limit = Math.abs(numberArg(command, 'limit') ?? 0);
  if (skip < 0) throw new CommandError('BadValue', 'skip value must be non-negative');
  const sorted = sortDocuments(collection.matching(optionalDocument(command, filterField)), optionalDocument(command, 'sort'));
  return sorted.slice(skip, limit > 0 ? skip + limit : undefined);
}

function find(command: BsonDocument, context: CommandContext): BsonDocument {
  const limit = numberArg(command, 'limit') ?? 0;
  const batchSize = numberArg(command, 'batchSize');
  if (batchSize !== undefined && batchSize < 0) throw new CommandError('BadValue', 'batchSize value must be non-negative');
  const project = compileProjection(optionalDocument(command, 'projection'));
  const results = select(command, context, 'filter').map(project);
  // A negative limit (legacy) or singleBatch means: one batch, then close the cursor.
  const singleBatch = limit < 0 || isTruthy(command.singleBatch);
  const firstBatchSize = limit < 0 ? Math.abs(limit) : batchSize;
  return context.cursors.open(`${context.database}.${targetCollection(command)}`, results, firstBatchSize, singleBatch);
}

function count(command: BsonDocument, context: CommandContext): BsonDocument {
  return { n: select(command, context, 'query').length, ok: 1 };
}

function distinct(command: BsonDocument, context: CommandContext): BsonDocument {
  const key = command.key;
  if (typeof key !== 'string' || key.length === 0) throw new CommandError('TypeMismatch', "'key' must be a non-empty string");
  const collection = context.storage.collection(context.database, targetCollection(command));
  const seen = new Map<string, unknown>();
  for (const doc of collection?.matching(optionalDocument(command, 'query')) ?? []) {
    for (const value of leafValuesAtPath(doc, key)) {
      const canonical = canonicalKey(value);
      if (!seen.has(canonical)) seen.set(canonical, value);
    }
  }
  return { values: [...seen.values()].sort(compareBson), ok: 1 };
}

export const readCommands: CommandTable = { find, count, distinct };
