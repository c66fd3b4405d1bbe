import { EJSON, type Binary, type Decimal128, type Long, type ObjectId } from 'bson';
import { bsonTypeTag, toNumber, type BsonDocument } from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { leafValuesAtPath } from '../bson/document-paths';
import { CommandError } from '../commands/command-error';
import { compileFilter, type Matcher } from '../query/matcher';
import type { IndexSpec } from './index-definition';

interface IndexKey {
  readonly canonical: string;
  readonly keyValue: BsonDocument;
}

/**
 * Enforces one unique index with a hash map from canonical key to the document holding it, so a
 * write costs one lookup instead of a scan. A missing field counts as null. With a
 * partialFilterExpression, only matching documents take part; a sparse index skips documents that
 * have none of the key fields.
 */
export class UniqueKeyIndex {
  private readonly holders = new Map<string, BsonDocument>();
  private readonly partial: Matcher | undefined;
  private readonly fields: string[];

  constructor(readonly spec: IndexSpec, private readonly namespace: string) {
    this.fields = Object.keys(spec.key);
    this.partial = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression) : undefined;
  }

  /** Throws DuplicateKey if `doc` would collide with a document other than `replacing`. */
  check(doc: BsonDocument, replacing?: BsonDocument): void {
    for (const key of this.keysOf(doc)) {
      const holder = this.holders.get(key.canonical);
      if (holder !== undefined && holder !== replacing && holder !== doc) throw this.duplicateError(key);
    }
  }

  add(doc: BsonDocument): void {
    for (const key of this.keysOf(doc)) this.holders.set(key.canonical, doc);
  }

  remove(doc: BsonDocument): void {
    for (const key of this.keysOf(doc)) {
      if (this.holders.get(key.canonical) === doc) this.holders.delete(key.canonical);
    }
  }

  /** Loads existing documents when the index is built; the first collision aborts the build. */
  build(docs: readonly BsonDocument[]): void {
    for (const doc of docs) {
      this.check(doc);
      this.add(doc);
    }
  }

  private keysOf(doc: BsonDocument): IndexKey[] {
    if (this.partial && !this.partial(doc)) return [];
    const perField = this.fields.map((field) => {
      const values = leafValuesAtPath(doc, field);
      return values.length > 0 ? values : [undefined];
    });
    if (this.spec.sparse && perField.every((values) => values.length === 1 && values[0] === undefined)) return [];
    // A multikey index holds one key per array element; a compound one, one per combination.
    let combos: unknown[][] = [[]];
    for (const values of perField) combos = combos.flatMap((combo) => values.map((value) => [...combo, value]));
    return combos.map((combo) => {
      const keyValue: BsonDocument = {};
      this.fields.forEach((field, i) => { keyValue[field] = combo[i] ?? null; });
      return { canonical: combo.map(canonicalKey).join('\u0000'), keyValue };
    });
  }

  private duplicateError(key: IndexKey): CommandError {
    const shown = Object.entries(key.keyValue).map(([field, value]) => `${field}: ${formatValue(value)}`).join(', ');
    return new CommandError(
      'DuplicateKey',
      `E11000 duplicate key error collection: ${this.namespace} index: ${this.spec.name} dup key: { ${shown} }`,
      { keyPattern: this.spec.key, keyValue: key.keyValue },
    );
  }
}

/** The shell-like notation MongoDB uses in E11000 messages. */
function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  switch (bsonTypeTag(value)) {
    case 'ObjectId': return `ObjectId('${(value as ObjectId).toHexString()}')`;
    case 'Binary': {
      const bin = value as Binary;
      return bin.sub_type === 4 && bin.position === 16
        ? `UUID("${bin.toUUID().toHexString(true)}")`
        : `BinData(${bin.sub_type}, ${bin.toString('hex').toUpperCase()})`;
    }
    case 'Int32':
    case 'Double': return String(toNumber(value));
    case 'Long': return (value as Long).toString();
    case 'Decimal128': return (value as Decimal128).toString();
    default: return EJSON.stringify(value, { relaxed: true });
  }
}
