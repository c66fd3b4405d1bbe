import { Aggregator } from 'mingo';
import { isPlainDocument, isTruthy, numericKind, type BsonDocument } from '../bson/bson-values';
import { fromView, toView } from '../bson/query-view';
import { CommandError } from '../commands/command-error';
import { MINGO_OPTIONS, mingoCall } from './matcher';

export type Projector = (doc: BsonDocument) => BsonDocument;

/** A tree of projected paths: `true` marks a projected leaf. */
interface PathTree { [field: string]: PathTree | true }

/**
 * Compiles a find/findAndModify projection. Plain inclusion and exclusion work on the stored BSON,
 * keeping every value's type; operator projections ($slice, $elemMatch, expressions) go through
 * mingo's $project on the query view.
 */
export function compileProjection(projection: BsonDocument | undefined): Projector {
  if (!projection || Object.keys(projection).length === 0) return (doc) => doc;
  const entries = Object.entries(projection);
  const simple = entries.every(([, value]) => typeof value === 'boolean' || numericKind(value) !== undefined);
  if (!simple) return expressionProjector(projection);
  const includeId = projection._id === undefined || isTruthy(projection._id);
  const fields = entries.filter(([path]) => path !== '_id');
  const inclusion = fields.some(([, value]) => isTruthy(value));
  if (inclusion && fields.some(([, value]) => !isTruthy(value))) {
    const [path] = fields.find(([, value]) => !isTruthy(value)) ?? [''];
    throw new CommandError('BadValue', `Cannot do exclusion on field ${path} in inclusion projection`);
  }
  const tree = pathTree(fields.map(([path]) => path));
  if (inclusion || (projection._id !== undefined && isTruthy(projection._id) && fields.length === 0)) {
    if (includeId) tree._id = true;
    return (doc) => include(doc, tree);
  }
  if (!includeId) tree._id = true;
  return (doc) => exclude(doc, tree) as BsonDocument;
}

function pathTree(paths: string[]): PathTree {
  const root: PathTree = {};
  for (const path of paths) {
    const parts = path.split('.');
    let node = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        node[part] = true;
        return;
      }
      const next = node[part];
      if (next === true) return;
      node = next ?? (node[part] = {});
    });
  }
  return root;
}

/** MongoDB keeps the document's field order, not the projection's. */
function include(doc: BsonDocument, tree: PathTree): BsonDocument {
  const out: BsonDocument = {};
  for (const [field, value] of Object.entries(doc)) {
    const node = tree[field];
    if (node === undefined) continue;
    if (node === true) out[field] = value;
    else if (isPlainDocument(value)) out[field] = include(value, node);
    else if (Array.isArray(value)) out[field] = includeInArray(value, node);
  }
  return out;
}

function includeInArray(items: unknown[], tree: PathTree): unknown[] {
  return items.flatMap((item): unknown[] => {
    if (isPlainDocument(item)) return [include(item, tree)];
    if (Array.isArray(item)) return [includeInArray(item, tree)];
    return []; // scalars cannot hold the sub-field
  });
}

function exclude(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((item) => exclude(item, tree));
  if (!isPlainDocument(value)) return value;
  const out: BsonDocument = {};
  for (const [field, item] of Object.entries(value)) {
    const node = tree[field];
    if (node === true) continue;
    out[field] = node === undefined ? item : exclude(item, node);
  }
  return out;
}

function expressionProjector(projection: BsonDocument): Projector {
  const stage = [{ $project: toView(projection) as BsonDocument }];
  const aggregator = mingoCall(() => new Aggregator(stage, MINGO_OPTIONS));
  return (doc) => fromView(mingoCall(() => aggregator.run([toView(doc)]))[0]) as BsonDocument;
}
