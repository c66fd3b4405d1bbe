import { isPlainDocument, isTruthy, numericKind, type BsonDocument } from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { compileFilter } from '../query/matcher';
import type { IndexSpec } from '../storage/index-definition';
import type { Collection } from '../storage/collection';
import { cursorBatchSize, requiredArray, targetCollection } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

function indexSpec(value: unknown): IndexSpec {
  if (!isPlainDocument(value)) throw new CommandError('TypeMismatch', 'each index specification must be an object');
  // `v` and `ns` are the server's to set; every other option is kept and listed back.
  const options = Object.fromEntries(Object.entries(value).filter(([field]) => !['key', 'name', 'v', 'ns'].includes(field)));
  const { key, name } = value;
  if (!isPlainDocument(key) || Object.keys(key).length === 0) {
    throw new CommandError('BadValue', "Index spec 'key' must be a non-empty object");
  }
  for (const [field, direction] of Object.entries(key)) {
    if (numericKind(direction) === undefined && typeof direction !== 'string') {
      throw new CommandError('BadValue', `Values in the index key pattern must be numbers or strings: ${field}`);
    }
  }
  if (typeof name !== 'string' || name.length === 0) throw new CommandError('BadValue', "Index spec 'name' must be a non-empty string");
  if (options.partialFilterExpression !== undefined) {
    if (!isPlainDocument(options.partialFilterExpression)) {
      throw new CommandError('TypeMismatch', 'partialFilterExpression must be an object');
    }
    compileFilter(options.partialFilterExpression); // rejects a malformed filter now, not on the next write
  }
  const spec: IndexSpec = { v: 2, key, name, ...options };
  if (spec.unique !== undefined && !isTruthy(spec.unique)) delete spec.unique;
  else if (spec.unique !== undefined) spec.unique = true;
  return spec;
}

function createIndexes(command: BsonDocument, context: CommandContext): BsonDocument {
  const specs = requiredArray(command, 'indexes').map(indexSpec);
  if (specs.length === 0) throw new CommandError('BadValue', 'Must specify at least one index to create');
  const { collection, created } = context.storage.ensureCollection(context.database, targetCollection(command));
  const before = collection.indexes.list().length;
  const outcomes = specs.map((spec) => collection.indexes.create(spec, collection.all()));
  const allExisted = outcomes.every((outcome) => outcome === 'exists');
  return {
    createdCollectionAutomatically: created,
    numIndexesBefore: before,
    numIndexesAfter: collection.indexes.list().length,
    ...(allExisted ? { note: 'all indexes already exist' } : {}),
    ok: 1,
  };
}

function existing(command: BsonDocument, context: CommandContext): Collection {
  const name = targetCollection(command);
  const collection = context.storage.collection(context.database, name);
  if (!collection) throw new CommandError('NamespaceNotFound', `ns does not exist: ${context.database}.${name}`);
  return collection;
}

function listIndexes(command: BsonDocument, context: CommandContext): BsonDocument {
  const collection = existing(command, context);
  const namespace = `${context.database}.$cmd.listIndexes.${collection.name}`;
  return context.cursors.open(namespace, [...collection.indexes.list()], cursorBatchSize(command));
}

/** `index` is a name, a key pattern, `'*'` (all but _id_) or an array of names. */
function dropIndexes(command: BsonDocument, context: CommandContext): BsonDocument {
  const collection = existing(command, context);
  const nIndexesWas = collection.indexes.list().length;
  const target = command.index;
  if (target === '*') {
    collection.indexes.dropAllButId();
  } else if (typeof target === 'string') {
    collection.indexes.drop(target);
  } else if (Array.isArray(target)) {
    for (const name of target) collection.indexes.drop(String(name));
  } else if (isPlainDocument(target)) {
    const wanted = canonicalKey(target);
    const matches = collection.indexes.list().filter((spec) => canonicalKey(spec.key) === wanted);
    if (matches.length === 0) throw new CommandError('IndexNotFound', `can't find index with key: ${JSON.stringify(Object.keys(target))}`);
    if (matches.length > 1) throw new CommandError('IndexNotFound', 'more than one index matches the key pattern; drop it by name');
    collection.indexes.drop(matches[0].name);
  } else {
    throw new CommandError('TypeMismatch', "'index' must be a name, a key pattern, '*' or an array of names");
  }
  return { nIndexesWas, ok: 1 };
}

export const indexCommands: CommandTable = { createIndexes, listIndexes, dropIndexes, deleteIndexes: dropIndexes };
