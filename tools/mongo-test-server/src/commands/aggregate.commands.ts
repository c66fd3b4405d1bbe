import { Long } from 'bson';
import { Context } from 'mingo';
import { Aggregator } from 'mingo/aggregator';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { isPlainDocument, numericKind, type BsonDocument } from '../bson/bson-values';
import { ViewValue } from '../bson/view-value';
import { fromView, toView } from '../bson/query-view';
import { MINGO_OPTIONS, mingoCall } from '../query/matcher';
import { cursorBatchSize, requiredArray } from './command-args';
import type { CommandContext, CommandTable } from './command-context';
import { CommandError } from './command-error';

/** Stages that write, watch or inspect the server: outside what an in-memory test server offers. */
const UNSUPPORTED_STAGES = new Set(['$out', '$merge', '$changeStream', '$changeStreamSplitLargeEvent',
  '$currentOp', '$collStats', '$indexStats', '$listSessions', '$listLocalSessions', '$planCacheStats',
  '$search', '$searchMeta', '$vectorSearch', '$geoNear']);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `$sum` as MongoDB computes it over integers: exactly. In the query view a Long beyond 2^53 is an
 * opaque value (a JS number would round it), which mingo's own `$sum` skips, so such a sum came out
 * 0. Integers (Longs included) are added as bigints; a total beyond 2^53 comes back as a Long, one
 * beyond 64 bits or any fractional addend makes the sum a double, as in MongoDB.
 */
function exactSum(collection: unknown[], expr: unknown, options: unknown): unknown {
  if (typeof expr === 'number') return collection.length * expr;
  let integral = 0n;
  let fractional = 0;
  let sawFraction = false;
  for (const value of accumulatorOperators.$push(collection, expr, options as never)) {
    if (typeof value === 'number') {
      if (Number.isInteger(value)) integral += BigInt(value);
      else if (Number.isFinite(value)) {
        fractional += value;
        sawFraction = true;
      }
    } else if (value instanceof ViewValue && numericKind(value.raw) === 'long') {
      integral += BigInt(String(value.raw));
    }
  }
  if (sawFraction || integral < INT64_MIN || integral > INT64_MAX) return Number(integral) + fractional;
  if (integral >= BigInt(Number.MIN_SAFE_INTEGER) && integral <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(integral);
  return toView(Long.fromBigInt(integral));
}

// Every operator mingo has, with `$sum` replaced. (A context given to mingo's default Aggregator
// cannot replace a built-in operator: the built-in one wins the merge.)
const EXACT_SUM = Context.init({
  accumulator: { ...accumulatorOperators, $sum: exactSum },
  expression: expressionOperators,
  pipeline: pipelineOperators,
  projection: projectionOperators,
  query: queryOperators,
  window: windowOperators,
});

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
    context: EXACT_SUM,
  }));
  const results = mingoCall(() => aggregator.run(source)).map((doc) => fromView(doc) as BsonDocument);
  const namespace = `${context.database}.${typeof target === 'string' ? target : '$cmd.aggregate'}`;
  return context.cursors.open(namespace, results, cursorBatchSize(command));
}

export const aggregateCommands: CommandTable = { aggregate };
