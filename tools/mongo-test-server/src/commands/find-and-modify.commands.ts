import { isTruthy, type BsonDocument } from '../bson/bson-values';
import { compileProjection } from '../query/projection';
import { sortDocuments } from '../query/sort';
import { executeUpdate } from '../update/update-executor';
import { optionalDocument, targetCollection } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

/**
 * Finds one document (the first in `sort` order), then removes or updates it and returns the
 * document before or, with `new: true`, after the change. A DuplicateKey here is a command error,
 * not a write error, as in MongoDB.
 */
function findAndModify(command: BsonDocument, context: CommandContext): BsonDocument {
  const remove = isTruthy(command.remove);
  const upsert = isTruthy(command.upsert);
  const returnNew = isTruthy(command.new);
  if (remove && command.update !== undefined) throw new CommandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (remove && (upsert || returnNew)) throw new CommandError('FailedToParse', 'Cannot specify both upsert=true and remove=true, or new=true and remove=true');
  if (!remove && command.update === undefined) throw new CommandError('FailedToParse', 'Either an update or remove=true must be specified');
  const name = targetCollection(command);
  const query = optionalDocument(command, 'query');
  const sort = optionalDocument(command, 'sort');
  const project = compileProjection(optionalDocument(command, 'fields'));
  const shown = (doc: BsonDocument | undefined): BsonDocument | null => (doc ? project(doc) : null);

  if (remove) {
    const collection = context.storage.collection(context.database, name);
    const [doc] = collection ? sortDocuments(collection.matching(query), sort) : [];
    if (doc) collection?.remove(doc);
    return { lastErrorObject: { n: doc ? 1 : 0 }, value: shown(doc), ok: 1 };
  }
  const collection = upsert
    ? context.storage.ensureCollection(context.database, name).collection
    : context.storage.collection(context.database, name);
  if (!collection) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const result = executeUpdate(collection, {
    filter: query, update: command.update, upsert, multi: false, arrayFilters: command.arrayFilters, sort,
  });
  if (result.upsertedId !== undefined) {
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: result.upsertedId },
      value: returnNew ? shown(result.after) : null,
      ok: 1,
    };
  }
  return {
    lastErrorObject: { n: result.matched, updatedExisting: result.matched > 0 },
    value: shown(returnNew ? result.after : result.before),
    ok: 1,
  };
}

export const findAndModifyCommands: CommandTable = { findAndModify, findandmodify: findAndModify };
