/**
 * Schema inference for schemaless collections.
 * Pure: the pipelines to run and how their results become a table schema. The I/O lives in
 * schema-discovery.mongodb.ts.
 */
import type { Document } from 'mongodb';
import { compareUtf8, type ColumnInfo, type ColumnKind, type TableSchema } from '@fetcher/engine';

export type BsonTypeName =
  | 'objectId'
  | 'date'
  | 'timestamp'
  | 'decimal'
  | 'binData'
  | 'uuid'
  | 'regex'
  | 'minKey'
  | 'maxKey'
  | 'number'
  | 'string'
  | 'boolean'
  | 'array'
  | 'object'
  | 'unknown';

/** A field seen with several types keeps the most specific one: the higher rank wins, ties keep the first seen. */
export const BSON_TYPE_RANK: Readonly<Record<BsonTypeName, number>> = Object.freeze({
  objectId: 10,
  date: 9,
  timestamp: 8,
  decimal: 7,
  binData: 6,
  uuid: 6,
  regex: 5,
  minKey: 4,
  maxKey: 4,
  number: 3,
  string: 2,
  boolean: 2,
  array: 2,
  object: 2,
  unknown: 1,
});

const KIND_BY_TYPE: Readonly<Partial<Record<BsonTypeName, ColumnKind>>> = {
  objectId: 'objectId',
  date: 'datetime',
  decimal: 'decimal',
  number: 'float',
  string: 'string',
  boolean: 'boolean',
  binData: 'binary',
  uuid: 'uuid',
};

export function kindOfBsonType(type: BsonTypeName): ColumnKind {
  return KIND_BY_TYPE[type] ?? 'other';
}

/** Key inference reads at most this many documents in order, below the sampling threshold. */
export const KEY_SCAN_LIMIT = 1000;
/** Above this count, key inference samples instead of reading the first documents. */
export const KEY_SAMPLE_THRESHOLD = 10_000;
/** Documents read for type inference. */
export const TYPE_SAMPLE_SIZE = 50;
/** Above this count, type inference samples instead of reading the first documents. */
export const TYPE_SAMPLE_THRESHOLD = 1000;

/** The aggregation that collects the top-level keys of (a sample of) the collection. */
export function keyInferencePipeline(count: number): Document[] {
  const head: Document =
    count <= KEY_SAMPLE_THRESHOLD
      ? // $limit must be positive; an (estimated) empty collection still reads what is there.
        { $limit: Math.max(1, Math.min(count, KEY_SCAN_LIMIT)) }
      : { $sample: { size: keySampleSize(count) } };
  return [
    head,
    { $project: { kv: { $objectToArray: '$$ROOT' } } },
    { $unwind: '$kv' },
    { $group: { _id: null, keys: { $addToSet: '$kv.k' } } },
  ];
}

function keySampleSize(count: number): number {
  if (count <= 100_000) return 2000;
  if (count <= 1_000_000) return 5000;
  return 10_000;
}

/** The keys out of the key pipeline's result (one `{_id: null, keys: [...]}` document, or none). */
export function keysFromGroupResult(results: readonly Document[]): string[] {
  const keys = results[0]?.keys as unknown;
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
}

/** The BSON type name of a value deserialised with BSON_DESERIALIZE_OPTIONS. */
export function bsonTypeOf(value: unknown): BsonTypeName {
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'object':
      break;
    default:
      return 'unknown';
  }
  if (value === null) return 'unknown';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  switch ((value as { _bsontype?: unknown })._bsontype) {
    case 'ObjectId':
      return 'objectId';
    case 'Timestamp':
      return 'timestamp';
    case 'Decimal128':
      return 'decimal';
    case 'Binary': {
      // A 16-byte subtype-4 binary is a UUID: read back as UUID text, so filters take UUID text too.
      const binary = value as { sub_type?: number; position?: number; length?: () => number };
      const size = typeof binary.length === 'function' ? binary.length() : binary.position;
      return binary.sub_type === 4 && size === 16 ? 'uuid' : 'binData';
    }
    case 'BSONRegExp':
      return 'regex';
    case 'MinKey':
      return 'minKey';
    case 'MaxKey':
      return 'maxKey';
    case 'Int32':
    case 'Double':
    case 'Long':
      return 'number';
    case undefined:
      break;
    default:
      return 'unknown'; // Code, BSONSymbol, DBRef
  }
  if (value instanceof RegExp) return 'regex';
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null ? 'object' : 'unknown';
}

/** The most specific type of each top-level field over the sampled documents. */
export function inferFieldTypes(documents: Iterable<Readonly<Document>>): Map<string, BsonTypeName> {
  const types = new Map<string, BsonTypeName>();
  for (const document of documents) {
    for (const field of Object.keys(document)) {
      const type = bsonTypeOf(document[field]);
      const current = types.get(field);
      if (current === undefined || BSON_TYPE_RANK[type] > BSON_TYPE_RANK[current]) types.set(field, type);
    }
  }
  return types;
}

/** The fields every sampled document holds with a value other than null (none when nothing was sampled). */
export function alwaysPresentFields(documents: readonly Readonly<Document>[]): Set<string> {
  if (documents.length === 0) return new Set();
  const present = new Set(Object.keys(documents[0]).filter((field) => documents[0][field] !== null && documents[0][field] !== undefined));
  for (const document of documents.slice(1)) {
    for (const field of present) if (document[field] === null || document[field] === undefined) present.delete(field);
  }
  return present;
}

/**
 * Fields = the union of the key set and the sampled fields, sorted; a key never sampled is `unknown`.
 * With `present` (what `alwaysPresentFields` found), the facts incremental planning reads as well: a
 * field is `nullable` unless every sampled document held it, strings are ordered by code point (the
 * simple binary comparison MongoDB applies without a collation), and `_id` is the primary key. The
 * sample is not the collection: a later NULL cursor fails the run (the engine checks every row)
 * rather than being skipped.
 */
export function tableSchemaOf(name: string, keys: Iterable<string>, types: ReadonlyMap<string, BsonTypeName>, present?: ReadonlySet<string>): TableSchema {
  const fields = [...new Set([...keys, ...types.keys()])].sort(compareUtf8);
  const columns: ColumnInfo[] = fields.map((field) => {
    const type = types.get(field) ?? 'unknown';
    const kind = kindOfBsonType(type);
    if (!present) return { name: field, kind, nativeType: type };
    return { name: field, kind, nativeType: type, nullable: !present.has(field), ...(kind === 'string' ? { ordering: 'binary' as const } : {}) };
  });
  return { name, fields, columns, ...(present && fields.includes('_id') ? { primaryKey: ['_id'] } : {}) };
}
