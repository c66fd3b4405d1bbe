import { Aggregator } from 'mingo';
import { cloneValue, isPlainDocument, type BsonDocument } from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { fromView, restoreNumericTypes, toView } from '../bson/query-view';
import { CommandError } from '../commands/command-error';
import { MINGO_OPTIONS, mingoCall } from '../query/matcher';
import type { UpdateContext } from './update-context';
import { UPDATE_OPERATORS, writtenPaths } from './update-operators';

/** Stages MongoDB allows in an update pipeline. */
const PIPELINE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

/**
 * Returns the updated copy of `doc`; `doc` itself is never changed (stored documents are
 * immutable, see matcher.ts). `update` is an operator document, a replacement, or a pipeline.
 */
export function applyUpdate(doc: BsonDocument, update: unknown, context: UpdateContext): BsonDocument {
  let next: BsonDocument;
  if (Array.isArray(update)) next = applyPipeline(doc, update);
  else if (!isPlainDocument(update)) throw new CommandError('FailedToParse', 'Update argument must be either an object or an array');
  else if (isOperatorUpdate(update)) next = applyOperators(doc, update, context);
  else next = applyReplacement(doc, update);
  if (!context.isInsert && canonicalKey(doc._id) !== canonicalKey(next._id)) {
    throw new CommandError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  return next;
}

export function isOperatorUpdate(update: BsonDocument): boolean {
  const keys = Object.keys(update);
  const operators = keys.filter((key) => key.startsWith('$'));
  if (operators.length > 0 && operators.length < keys.length) {
    throw new CommandError('FailedToParse', 'An update document cannot mix update operators and plain fields');
  }
  return keys.length > 0 && operators.length === keys.length;
}

function applyOperators(doc: BsonDocument, update: BsonDocument, context: UpdateContext): BsonDocument {
  const next = cloneValue(doc);
  const seen: string[] = [];
  for (const [operator, fields] of Object.entries(update)) {
    const apply = UPDATE_OPERATORS[operator];
    if (!apply) throw new CommandError('FailedToParse', `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`);
    if (!isPlainDocument(fields)) throw new CommandError('FailedToParse', `Modifiers operate on fields but we found type ${typeof fields} instead`);
    for (const [path, argument] of Object.entries(fields)) {
      for (const written of writtenPaths(operator, path, argument)) checkConflict(seen, written);
    }
    for (const [path, argument] of Object.entries(fields)) apply(next, path, argument, context);
  }
  return next;
}

function checkConflict(seen: string[], path: string): void {
  const clash = seen.find((other) => other === path || other.startsWith(`${path}.`) || path.startsWith(`${other}.`));
  if (clash !== undefined) {
    throw new CommandError('ConflictingUpdateOperators', `Updating the path '${path}' would create a conflict at '${clash}'`);
  }
  seen.push(path);
}

/** A replacement keeps the `_id` (first, as MongoDB stores it) and drops every other field. */
function applyReplacement(doc: BsonDocument, replacement: BsonDocument): BsonDocument {
  const { _id: replacementId, ...rest } = cloneValue(replacement);
  return { _id: replacementId === undefined ? doc._id : replacementId, ...rest };
}

function applyPipeline(doc: BsonDocument, stages: unknown[]): BsonDocument {
  for (const stage of stages) {
    const name = isPlainDocument(stage) ? Object.keys(stage)[0] : undefined;
    if (name === undefined || !PIPELINE_STAGES.has(name)) {
      throw new CommandError('BadValue', `${name ?? 'a non-document stage'} is not allowed to be used within an update`);
    }
  }
  const aggregator = mingoCall(() => new Aggregator(toView(stages) as BsonDocument[], MINGO_OPTIONS));
  const [result] = mingoCall(() => aggregator.run([toView(doc)]));
  const next = restoreNumericTypes(fromView(result), doc) as BsonDocument;
  if (next._id === undefined) return { _id: doc._id, ...next };
  return next;
}
