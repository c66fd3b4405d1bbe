import { Timestamp } from 'bson';
import { compareBson } from '../bson/bson-compare';
import {
  addNumbers, cloneValue, isPlainDocument, makeNumber, multiplyNumbers, numericKind, toNumber, type BsonDocument,
} from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError } from '../commands/command-error';
import { compileFilter } from '../query/matcher';
import { sortDocuments } from '../query/sort';
import type { UpdateContext } from './update-context';
import { clearSlot, resolveSlots, slotValue, writeSlot, type Slot } from './update-slots';

type Operator = (doc: BsonDocument, path: string, argument: unknown, context: UpdateContext) => void;

/** Applies `write(current)` to every slot of `path`, creating missing parents. */
function eachSlot(doc: BsonDocument, path: string, context: UpdateContext, write: (current: unknown, slot: Slot) => unknown): void {
  for (const slot of resolveSlots(doc, path, context, true)) writeSlot(slot, write(slotValue(slot), slot));
}

function requireNumber(operator: string, argument: unknown): void {
  if (numericKind(argument) === undefined) {
    throw new CommandError('TypeMismatch', `Cannot ${operator} with non-numeric argument: {${String(argument)}}`);
  }
}

function arithmetic(operator: string, combine: (a: unknown, b: unknown) => unknown, seed: (argument: unknown) => unknown): Operator {
  return (doc, path, argument, context) => {
    requireNumber(operator, argument);
    eachSlot(doc, path, context, (current, slot) => {
      if (current === undefined) return seed(argument);
      if (numericKind(current) === undefined) {
        throw new CommandError('TypeMismatch', `Cannot apply ${operator} to a value of non-numeric type at '${slot.path}'`);
      }
      return combine(current, argument);
    });
  };
}

function bound(keepNew: (order: number) => boolean): Operator {
  return (doc, path, argument, context) => eachSlot(doc, path, context,
    (current) => (current === undefined || keepNew(compareBson(argument, current)) ? cloneValue(argument) : current));
}

/** The array at a slot, creating it if missing; anything else there is an error. */
function arrayAt(current: unknown, slot: Slot): unknown[] {
  if (current === undefined) return [];
  if (!Array.isArray(current)) {
    throw new CommandError('BadValue', `The field '${slot.path}' must be an array but is of a different type`);
  }
  return [...(current as unknown[])];
}

/** `{$each: [...], ...modifiers}` or a single value. */
function eachItems(argument: unknown): { items: unknown[]; modifiers: BsonDocument } {
  if (isPlainDocument(argument) && '$each' in argument) {
    if (!Array.isArray(argument.$each)) throw new CommandError('BadValue', '$each must be an array');
    return { items: argument.$each.map(cloneValue), modifiers: argument };
  }
  return { items: [cloneValue(argument)], modifiers: {} };
}

const push: Operator = (doc, path, argument, context) => eachSlot(doc, path, context, (current, slot) => {
  const array = arrayAt(current, slot);
  const { items, modifiers } = eachItems(argument);
  const position = modifiers.$position === undefined ? array.length : toNumber(modifiers.$position);
  array.splice(position < 0 ? Math.max(0, array.length + position) : position, 0, ...items);
  let result = array;
  if (modifiers.$sort !== undefined) result = sortArray(result, modifiers.$sort);
  if (modifiers.$slice !== undefined) {
    const slice = toNumber(modifiers.$slice);
    result = slice >= 0 ? result.slice(0, slice) : result.slice(slice);
  }
  return result;
});

function sortArray(items: unknown[], spec: unknown): unknown[] {
  if (isPlainDocument(spec)) return sortDocuments(items as BsonDocument[], spec);
  const direction = toNumber(spec);
  return [...items].sort((a, b) => compareBson(a, b) * direction);
}

const addToSet: Operator = (doc, path, argument, context) => eachSlot(doc, path, context, (current, slot) => {
  const array = arrayAt(current, slot);
  const seen = new Set(array.map(canonicalKey));
  for (const item of eachItems(argument).items) {
    const key = canonicalKey(item);
    if (!seen.has(key)) {
      seen.add(key);
      array.push(item);
    }
  }
  return array;
});

/** Removes matching elements from an existing array; a missing path is left alone. */
function removeFromArray(matches: (item: unknown) => boolean): Operator {
  return (doc, path, _argument, context) => {
    for (const slot of resolveSlots(doc, path, context, false)) {
      const current = slotValue(slot);
      if (current === undefined) continue;
      writeSlot(slot, arrayAt(current, slot).filter((item) => !matches(item)));
    }
  };
}

/** `$pull` takes a value, a condition on the element (`{$gte: 5}`) or a query on element fields. */
function pullMatcher(argument: unknown): (item: unknown) => boolean {
  if (!isPlainDocument(argument)) return (item) => canonicalKey(item) === canonicalKey(argument);
  const keys = Object.keys(argument);
  if (keys.length > 0 && keys.every((key) => key.startsWith('$'))) {
    const matches = compileFilter({ value: argument });
    return (item) => matches({ value: item });
  }
  const matches = compileFilter(argument);
  return (item) => isPlainDocument(item) && matches(item);
}

export const UPDATE_OPERATORS: Readonly<Record<string, Operator>> = {
  $set: (doc, path, argument, context) => eachSlot(doc, path, context, () => cloneValue(argument)),
  $setOnInsert: (doc, path, argument, context) => {
    if (context.isInsert) eachSlot(doc, path, context, () => cloneValue(argument));
  },
  $unset: (doc, path, _argument, context) => resolveSlots(doc, path, context, false).forEach(clearSlot),
  $inc: arithmetic('$inc', addNumbers, cloneValue),
  $mul: arithmetic('$mul', multiplyNumbers, (argument) => makeNumber(numericKind(argument) ?? 'int', 0)),
  $min: bound((order) => order < 0),
  $max: bound((order) => order > 0),
  $currentDate: (doc, path, argument, context) => {
    const timestamp = isPlainDocument(argument) && argument.$type === 'timestamp';
    const now = Date.now();
    eachSlot(doc, path, context, () => (timestamp
      ? new Timestamp({ t: Math.floor(now / 1000), i: 1 })
      : new Date(now)));
  },
  $rename: (doc, path, argument, context) => {
    if (typeof argument !== 'string' || argument.length === 0) {
      throw new CommandError('BadValue', `The 'to' field for $rename must be a string: ${path}`);
    }
    const [source] = resolveSlots(doc, path, context, false);
    const value = source === undefined ? undefined : slotValue(source);
    if (source === undefined || value === undefined) return;
    clearSlot(source);
    eachSlot(doc, argument, context, () => value);
  },
  $push: push,
  $addToSet: addToSet,
  $pop: (doc, path, argument, context) => {
    for (const slot of resolveSlots(doc, path, context, false)) {
      const current = slotValue(slot);
      if (current === undefined) continue;
      const array = arrayAt(current, slot);
      if (toNumber(argument) < 0) array.shift();
      else array.pop();
      writeSlot(slot, array);
    }
  },
  $pull: (doc, path, argument, context) => removeFromArray(pullMatcher(argument))(doc, path, argument, context),
  $pullAll: (doc, path, argument, context) => {
    if (!Array.isArray(argument)) throw new CommandError('BadValue', '$pullAll requires an array argument');
    const removed = new Set(argument.map(canonicalKey));
    removeFromArray((item) => removed.has(canonicalKey(item)))(doc, path, argument, context);
  },
};

/** Paths an operator writes, for the conflict check ($rename writes two). */
export function writtenPaths(operator: string, path: string, argument: unknown): string[] {
  return operator === '$rename' && typeof argument === 'string' ? [path, argument] : [path];
}

