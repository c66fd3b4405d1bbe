import { isPlainDocument, isTruthy, optionalNumber, type BsonDocument } from '../bson/bson-values';
import type { Collection } from '../storage/collection';
import { executeUpdate } from '../update/update-executor';
import { withIdFirst } from '../update/upsert-seed';
import { requiredArray, targetCollection } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

/**
 * Runs each statement of a write command, collecting per-statement failures as `writeErrors` the
 * way MongoDB does: an ordered batch stops at the first failure, an unordered one carries on.
 */
function runStatements(command: BsonDocument, statements: unknown[], run: (statement: unknown, index: number) => void): BsonDocument[] {
  const ordered = command.ordered === undefined || isTruthy(command.ordered);
  const writeErrors: BsonDocument[] = [];
  for (const [index, statement] of statements.entries()) {
    try {
      run(statement, index);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      writeErrors.push(error.toWriteError(index));
      if (ordered) break;
    }
  }
  return writeErrors;
}

const withErrors = (reply: BsonDocument, writeErrors: BsonDocument[]): BsonDocument =>
  (writeErrors.length > 0 ? { ...reply, writeErrors } : reply);

function statementDocument(statement: unknown, what: string): BsonDocument {
  if (!isPlainDocument(statement)) throw new CommandError('TypeMismatch', `${what} must be an object`);
  return statement;
}

function insert(command: BsonDocument, context: CommandContext): BsonDocument {
  const documents = requiredArray(command, 'documents');
  const { collection } = context.storage.ensureCollection(context.database, targetCollection(command));
  let n = 0;
  const writeErrors = runStatements(command, documents, (statement) => {
    const doc = withIdFirst(statementDocument(statement, 'a document to insert'));
    if (Array.isArray(doc._id)) throw new CommandError('BadValue', "can't use an array for _id");
    collection.insert(doc);
    n++;
  });
  return withErrors({ n, ok: 1 }, writeErrors);
}

function update(command: BsonDocument, context: CommandContext): BsonDocument {
  const updates = requiredArray(command, 'updates');
  const name = targetCollection(command);
  let n = 0;
  let nModified = 0;
  const upserted: BsonDocument[] = [];
  const writeErrors = runStatements(command, updates, (statement, index) => {
    const spec = statementDocument(statement, 'an update statement');
    const upsert = isTruthy(spec.upsert);
    const collection: Collection | undefined = upsert
      ? context.storage.ensureCollection(context.database, name).collection
      : context.storage.collection(context.database, name);
    if (!collection) return;
    const result = executeUpdate(collection, {
      filter: spec.q === undefined ? undefined : statementDocument(spec.q, "'q'"),
      update: spec.u,
      upsert,
      multi: isTruthy(spec.multi),
      arrayFilters: spec.arrayFilters,
    });
    n += result.matched;
    nModified += result.modified;
    if (result.upsertedId !== undefined) {
      n += 1;
      upserted.push({ index, _id: result.upsertedId });
    }
  });
  return withErrors({ n, nModified, ...(upserted.length > 0 ? { upserted } : {}), ok: 1 }, writeErrors);
}

function remove(command: BsonDocument, context: CommandContext): BsonDocument {
  const deletes = requiredArray(command, 'deletes');
  const collection = context.storage.collection(context.database, targetCollection(command));
  let n = 0;
  const writeErrors = runStatements(command, deletes, (statement) => {
    const spec = statementDocument(statement, 'a delete statement');
    const limit = optionalNumber(spec.limit) ?? 0;
    if (limit !== 0 && limit !== 1) throw new CommandError('BadValue', 'The limit field in delete objects must be 0 or 1');
    if (!collection) return;
    const matches = collection.matching(spec.q);
    for (const doc of limit === 1 ? matches.slice(0, 1) : matches) {
      collection.remove(doc);
      n++;
    }
  });
  return withErrors({ n, ok: 1 }, writeErrors);
}

export const writeCommands: CommandTable = { insert, update, delete: remove };
