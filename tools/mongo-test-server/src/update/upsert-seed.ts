import { ObjectId } from 'bson';
import { cloneValue, isPlainDocument, type BsonDocument } from '../bson/bson-values';

/**
 * The document an upsert starts from: the equality conditions of the filter (`{a: 1}`,
 * `{a: {$eq: 1}}`, including inside `$and`), with dotted paths expanded into sub-documents.
 */
export function seedFromFilter(filter: BsonDocument | undefined): BsonDocument {
  const seed: BsonDocument = {};
  const visit = (conditions: BsonDocument): void => {
    for (const [key, value] of Object.entries(conditions)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const part of value) if (isPlainDocument(part)) visit(part);
      } else if (!key.startsWith('$')) {
        const operators = isPlainDocument(value) ? Object.keys(value).filter((k) => k.startsWith('$')) : [];
        if (operators.length === 0) setPath(seed, key, cloneValue(value));
        else if (isPlainDocument(value) && operators.length === 1 && '$eq' in value) setPath(seed, key, cloneValue(value.$eq));
      }
    }
  };
  if (filter) visit(filter);
  return seed;
}

function setPath(doc: BsonDocument, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = doc;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!isPlainDocument(next)) node[part] = {};
    node = node[part] as BsonDocument;
  }
  node[parts[parts.length - 1]] = value;
}

/** MongoDB stores `_id` as the first field and generates an ObjectId when there is none. */
export function withIdFirst(doc: BsonDocument): BsonDocument {
  const { _id: id, ...rest } = doc;
  return { _id: id === undefined ? new ObjectId() : id, ...rest };
}
