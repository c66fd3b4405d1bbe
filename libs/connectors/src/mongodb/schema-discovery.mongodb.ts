/**
 * Schema discovery against a live database: the
 * collections of the database, then per collection its keys and their inferred types.
 */
import type { Db, Document } from 'mongodb';
import { compareUtf8, type TableSchema } from '@fetcher/engine';
import { isSystemObject, normaliseTableKey } from '../common/naming';
import { deserializeDocument } from './value-mapping.mongodb';
import {
  TYPE_SAMPLE_SIZE,
  TYPE_SAMPLE_THRESHOLD,
  alwaysPresentFields,
  inferFieldTypes,
  keyInferencePipeline,
  keysFromGroupResult,
  tableSchemaOf,
} from './schema-inference.mongodb';

/**
 * Normalised table key -> collection name, system collections left out. Quirk (kept): `a.b.c` is
 * reported as `b.c`. When two collections normalise to the same key, the one named exactly like
 * the key wins, else the first in UTF-8 order, so the mapping is deterministic.
 */
export function collectionsByKey(names: Iterable<string>): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const name of [...names].filter((n) => !isSystemObject('MONGODB', n)).sort(compareUtf8)) {
    const key = normaliseTableKey('MONGODB', name);
    const current = byKey.get(key);
    if (current === undefined || (name === key && current !== key)) byKey.set(key, name);
  }
  return byKey;
}

/** `authorizedCollections`: a user without the listCollections privilege still sees what it may read. */
export async function listCollectionKeys(db: Db, signal: AbortSignal): Promise<Map<string, string>> {
  const infos = await db.listCollections({}, { nameOnly: true, authorizedCollections: true, signal }).toArray();
  return collectionsByKey(infos.map((info) => info.name).filter((name): name is string => typeof name === 'string'));
}

/** Keys (aggregation; a failure gives an empty key set) plus types from up to 50 documents. */
export async function inferCollectionSchema(db: Db, key: string, collection: string, signal: AbortSignal): Promise<TableSchema> {
  const count = await metadataCount(db, collection, signal);
  const keys = await inferKeys(db, collection, count, signal);
  const documents = await sampleDocuments(db, collection, count, signal);
  return tableSchemaOf(key, keys, inferFieldTypes(documents), alwaysPresentFields(documents));
}

/** The collection's metadata count (the `count` command without a filter): a size class, not an exact figure. */
async function metadataCount(db: Db, collection: string, signal: AbortSignal): Promise<number> {
  const reply = await db.command({ count: collection }, { signal });
  const n = Number(reply.n);
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

async function inferKeys(db: Db, collection: string, count: number, signal: AbortSignal): Promise<string[]> {
  try {
    const results = await db.collection(collection).aggregate(keyInferencePipeline(count), { signal }).toArray();
    return keysFromGroupResult(results);
  } catch (error) {
    if (signal.aborted) throw error;
    return []; // by contract: a failed key aggregation means an empty key set; the sampled fields remain
  }
}

async function sampleDocuments(db: Db, collection: string, count: number, signal: AbortSignal): Promise<Document[]> {
  const source = db.collection(collection);
  const cursor =
    count > TYPE_SAMPLE_THRESHOLD
      ? source.aggregate([{ $sample: { size: TYPE_SAMPLE_SIZE } }], { raw: true, signal })
      : source.find({}, { limit: TYPE_SAMPLE_SIZE, raw: true, signal });
  const documents: Document[] = [];
  for (const item of (await cursor.toArray()) as unknown[]) {
    const document = item instanceof Uint8Array ? deserializeDocument(item) : (item as Document);
    if (document !== undefined) documents.push(document); // undecodable documents are skipped
  }
  return documents;
}
