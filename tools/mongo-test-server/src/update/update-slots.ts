import { isPlainDocument, cloneValue, type BsonDocument } from '../bson/bson-values';
import { CommandError } from '../commands/command-error';
import type { UpdateContext } from './update-context';

/** One place an update operator writes to: a field of a document or an element of an array. */
export interface Slot {
  readonly parent: BsonDocument | unknown[];
  readonly key: string;
  /** The concrete path, positional segments resolved (for messages and nested lookups). */
  readonly path: string;
}

export function slotValue(slot: Slot): unknown {
  return Array.isArray(slot.parent) ? slot.parent[Number(slot.key)] : slot.parent[slot.key];
}

export function writeSlot(slot: Slot, value: unknown): void {
  if (Array.isArray(slot.parent)) {
    const index = Number(slot.key);
    // Writing past the end pads with nulls, as MongoDB does.
    while (slot.parent.length < index) slot.parent.push(null);
    slot.parent[index] = value;
  } else {
    slot.parent[slot.key] = value;
  }
}

/** `$unset` of an array element leaves a null in its place; of a field, removes it. */
export function clearSlot(slot: Slot): void {
  if (Array.isArray(slot.parent)) {
    if (Number(slot.key) < slot.parent.length) slot.parent[Number(slot.key)] = null;
  } else {
    delete slot.parent[slot.key];
  }
}

/**
 * Every slot a dotted update path addresses, expanding `$`, `$[]` and `$[id]`. With `create`,
 * missing intermediate documents are created (for $set and friends); without it, a missing path
 * yields no slot (for $unset, $pull, ...).
 */
export function resolveSlots(root: BsonDocument, path: string, context: UpdateContext, create: boolean): Slot[] {
  const parts = path.split('.');
  const slots: Slot[] = [];
  const walk = (container: BsonDocument | unknown[], i: number, done: string[]): void => {
    for (const key of expandSegment(container, parts[i], done, context)) {
      const here = [...done, key];
      if (Array.isArray(container) && !/^\d+$/.test(key)) {
        if (!create) continue;
        throw new CommandError('PathNotViable', `Cannot create field '${key}' in element {${done.at(-1) ?? ''}: [...]}`);
      }
      if (i === parts.length - 1) {
        slots.push({ parent: container, key, path: here.join('.') });
        continue;
      }
      const slot: Slot = { parent: container, key, path: here.join('.') };
      let child = slotValue(slot);
      if (child === undefined || child === null) {
        if (!create) continue;
        child = {};
        writeSlot(slot, child);
      }
      if (isPlainDocument(child) || Array.isArray(child)) walk(child, i + 1, here);
      else if (create) {
        throw new CommandError('PathNotViable', `Cannot create field '${parts[i + 1]}' in element {${key}: ${String(child)}}`);
      }
    }
  };
  walk(root, 0, []);
  return slots;
}

function expandSegment(container: BsonDocument | unknown[], segment: string, done: string[], context: UpdateContext): string[] {
  if (!segment.startsWith('$')) return [segment];
  if (!Array.isArray(container)) {
    throw new CommandError('BadValue', `The positional operator '${segment}' needs an array at '${done.join('.')}'`);
  }
  if (segment === '$[]') return container.map((_, i) => String(i));
  if (segment === '$') return [String(positionalIndex(done, container.length, context))];
  const identifier = /^\$\[([a-z][a-zA-Z0-9]*)\]$/.exec(segment)?.[1];
  const matcher = identifier === undefined ? undefined : context.arrayFilters.get(identifier);
  if (!matcher) {
    throw new CommandError('BadValue', `No array filter found for identifier '${identifier ?? segment}' in path '${done.join('.')}'`);
  }
  return container.flatMap((item, i) => (matcher({ [identifier as string]: item }) ? [String(i)] : []));
}

/**
 * The positional `$`: the first element of the array at `arrayPath` that satisfies the filter.
 * Found by testing the filter against the original document with that array cut down to one
 * element at a time; conditions on other fields still hold, since the document matched.
 */
function positionalIndex(arrayPath: string[], length: number, context: UpdateContext): number {
  const array = arrayPath.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], context.original);
  if (Array.isArray(array)) {
    for (let i = 0; i < Math.min(length, array.length); i++) {
      const probe = cloneValue(context.original);
      const parent = arrayPath.slice(0, -1).reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], probe);
      (parent as Record<string, unknown>)[arrayPath[arrayPath.length - 1]] = [array[i]];
      if (context.filter(probe)) return i;
    }
  }
  throw new CommandError('BadValue', 'The positional operator did not find the match needed from the query.');
}
