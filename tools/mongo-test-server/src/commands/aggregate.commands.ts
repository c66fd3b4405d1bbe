import { Aggregator } from 'mingo';
import { isPlainDocument, type BsonDocument } from '../bson/bson-values';
import { fromView, toView } from '../bson/query-view';
import { MINGO_OPTIONS, mingoCall } from '../query/matcher';
import { cursorBatchSize, requiredArray } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

/** Stages that write, watch or inspect the server: outside what an in-memory test server offers. */
const UNSUPPORTED_STAGES = new Set(['$out', '$merge', '$changeStream', '$changeStreamSplitLargeEvent',
  '$currentOp', '$collStats', '$indexStats', '$listSessions', '$listLocalSessions', '$planCacheStats',
  '$search', '$searchMeta', '$vectorSearch', '$geoNear']);

/**
 * Runs a pipeline with mingo over the query view of the collection (numbers as JS numbers,
 * Binary/ObjectId as canonical wrappers), then converts the results back to BSON. `$lookup` can
 * read other collections of the same database.
 */
function aggregate(command: BsonDocument, context: CommandContext): BsonDocument {
  const pipeline = requiredArray(command, 'pipeline');
  for (const stage of pipeline) {
    const name = isPlainDocument(stage) ? Object.keys(stage)[0] : undefined;
    if (name === undefined) throw new CommandError('TypeMismatch', 'Each element of the pipeline must be an object');
    if (UNSUPPORTED_STAGES.has(name)) {
      throw new CommandError('CommandNotSupported', `${name} is not supported by the mongo test server`);
    }
  }
  if (command.explain !== undefined && command.explain !== false) {
    throw new CommandError('CommandNotSupported', 'explain is not supported by the mongo test server');
  }
  const target = command.aggregate;
  if (typeof target !== 'string' && target !== 1) {
    // `aggregate: 1` runs a collection-less pipeline (for example one starting with $documents).
    const isOne = typeof target === 'object' && target !== null && Number(target.valueOf()) === 1;
    if (!isOne) throw new CommandError('TypeMismatch', "'aggregate' must be a collection name or 1");
  }
  const readCollection = (name: string): BsonDocument[] =>
    (context.storage.collection(context.database, name)?.all() ?? []).map((doc) => toView(doc) as BsonDocument);
  const source = typeof target === 'string' ? readCollection(target) : [];
  const aggregator = mingoCall(() => new Aggregator(toView(pipeline) as BsonDocument[], {
    ...MINGO_OPTIONS,
    collectionResolver: readCollection,
  }));
  const results = mingoCall(() => aggregator.run(source)).map((doc) => fromView(doc) as BsonDocument);
  const namespace = `${context.database}.${typeof target === 'string' ? target : '$cmd.aggregate'}`;
  return context.cursors.open(namespace, results, cursorBatchSize(command));
}

export const aggregateCommands: CommandTable = { aggregate };
