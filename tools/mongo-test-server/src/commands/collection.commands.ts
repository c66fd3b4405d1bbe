import type { BsonDocument } from '../bson/bson-values';
import { compileFilter } from '../query/matcher';
import { ID_INDEX } from '../storage/index-definition';
import { cursorBatchSize, targetCollection, withoutGenericFields } from './command-args';
import type { CommandContext, CommandTable } from './command-context';

function create(command: BsonDocument, context: CommandContext): BsonDocument {
  const name = targetCollection(command);
  const options = Object.fromEntries(Object.entries(withoutGenericFields(command)).filter(([key]) => key !== 'create'));
  context.storage.createCollection(context.database, name, options);
  return { ok: 1 };
}

/** MongoDB 7 answers ok for a collection that does not exist. */
function drop(command: BsonDocument, context: CommandContext): BsonDocument {
  const name = targetCollection(command);
  const dropped = context.storage.dropCollection(context.database, name);
  if (!dropped) return { ok: 1 };
  return { nIndexesWas: dropped.indexes.list().length, ns: dropped.namespace, ok: 1 };
}

function dropDatabase(_command: BsonDocument, context: CommandContext): BsonDocument {
  context.storage.dropDatabase(context.database);
  return { dropped: context.database, ok: 1 };
}

function listCollections(command: BsonDocument, context: CommandContext): BsonDocument {
  const matches = compileFilter(command.filter);
  const entries = context.storage.collections(context.database)
    .map((collection): BsonDocument => ({
      name: collection.name,
      type: 'collection',
      options: collection.options,
      info: { readOnly: false, uuid: collection.uuid },
      idIndex: ID_INDEX,
    }))
    .filter((entry) => matches(entry))
    .map((entry) => (command.nameOnly ? { name: entry.name, type: entry.type } : entry));
  return context.cursors.open(`${context.database}.$cmd.listCollections`, entries, cursorBatchSize(command));
}

export const collectionCommands: CommandTable = { create, drop, dropDatabase, listCollections };
