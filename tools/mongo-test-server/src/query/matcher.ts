import { Query } from 'mingo';
import type { BsonDocument } from '../bson/bson-values';
import { toView } from '../bson/query-view';
import { CommandError } from '../commands/command-error';

export type Matcher = (doc: BsonDocument) => boolean;

/** `$where` would run client-supplied JavaScript inside the test process: refused. */
export const MINGO_OPTIONS = { scriptEnabled: false } as const;

// Stored documents are never mutated (updates store a new object), so a view computed once per
// document object stays valid until that object leaves the collection.
const views = new WeakMap<BsonDocument, BsonDocument>();

export function viewOf(doc: BsonDocument): BsonDocument {
  let view = views.get(doc);
  if (!view) {
    view = toView(doc) as BsonDocument;
    views.set(doc, view);
  }
  return view;
}

/** Compiles a MongoDB query filter. An empty or absent filter matches everything. */
export function compileFilter(filter: unknown): Matcher {
  if (filter === undefined || filter === null) return () => true;
  if (typeof filter !== 'object' || Array.isArray(filter)) {
    throw new CommandError('TypeMismatch', 'filter must be an object');
  }
  if (Object.keys(filter).length === 0) return () => true;
  const query = mingoCall(() => new Query(toView(filter) as BsonDocument, MINGO_OPTIONS));
  return (doc) => mingoCall(() => query.test(viewOf(doc)));
}

/** mingo reports a bad operator or argument by throwing; the client gets BadValue, the process lives. */
export function mingoCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof CommandError) throw error;
    const detail = error instanceof Error ? error.message : 'unknown error';
    throw new CommandError('BadValue', `invalid query: ${detail}`);
  }
}
