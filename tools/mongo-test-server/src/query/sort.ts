import { compareBson } from '../bson/bson-compare';
import { optionalNumber, type BsonDocument } from '../bson/bson-values';
import { leafValuesAtPath } from '../bson/document-paths';
import { CommandError } from '../commands/command-error';

/**
 * Sorts documents by a sort spec with MongoDB's cross-type order (bson-compare). A field holding an
 * array sorts by its smallest element ascending and its largest descending; a missing field sorts
 * as null. The sort is stable, so ties keep natural order.
 */
export function sortDocuments(docs: BsonDocument[], spec: BsonDocument | undefined): BsonDocument[] {
  if (!spec || Object.keys(spec).length === 0) return docs;
  const fields = Object.entries(spec).map(([path, direction]) => {
    const n = optionalNumber(direction);
    if (n !== 1 && n !== -1) {
      throw new CommandError('BadValue', `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    }
    return { path, direction: n };
  });
  const keyed = docs.map((doc) => ({ doc, keys: fields.map(({ path, direction }) => sortKey(doc, path, direction)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const order = compareBson(a.keys[i], b.keys[i]) * fields[i].direction;
      if (order !== 0) return order;
    }
    return 0;
  });
  return keyed.map(({ doc }) => doc);
}

function sortKey(doc: BsonDocument, path: string, direction: number): unknown {
  const values = leafValuesAtPath(doc, path);
  if (values.length === 0) return null;
  return values.reduce((best, value) => (compareBson(value, best) * direction < 0 ? value : best));
}

