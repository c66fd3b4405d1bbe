import { isPlainDocument } from './bson-values';

/**
 * Every value a dotted path reaches, descending into arrays of documents the way MongoDB does for
 * queries, index keys and `distinct` (`tags.name` reaches the `name` of every element of `tags`).
 * A terminal array is returned as one value; callers that want its elements flatten it.
 */
export function valuesAtPath(root: unknown, path: string): unknown[] {
  const found: unknown[] = [];
  collect(root, path.split('.'), 0, found);
  return found;
}

function collect(value: unknown, parts: string[], i: number, found: unknown[]): void {
  if (i === parts.length) {
    found.push(value);
    return;
  }
  const part = parts[i];
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part)) {
      const index = Number(part);
      if (index < value.length) collect(value[index], parts, i + 1, found);
      return;
    }
    for (const item of value) if (isPlainDocument(item)) collect(item, parts, i, found);
    return;
  }
  if (isPlainDocument(value) && Object.hasOwn(value, part)) collect(value[part], parts, i + 1, found);
}

/** Like valuesAtPath, with terminal arrays replaced by their elements (index keys, distinct). */
export function leafValuesAtPath(root: unknown, path: string): unknown[] {
  return valuesAtPath(root, path).flatMap((value): unknown[] => (Array.isArray(value) ? (value as unknown[]) : [value]));
}
