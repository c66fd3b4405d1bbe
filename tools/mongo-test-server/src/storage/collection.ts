import { randomUUID } from 'node:crypto';
import { Binary } from 'bson';
import type { BsonDocument } from '../bson/bson-values';
import { compileFilter } from '../query/matcher';
import { IndexCatalog } from './index-catalog';

/** One collection: documents in natural (insertion) order plus its indexes. */
export class Collection {
  readonly indexes: IndexCatalog;
  readonly uuid = new Binary(Buffer.from(randomUUID().replaceAll('-', ''), 'hex'), Binary.SUBTYPE_UUID);
  private docs: BsonDocument[] = [];

  constructor(readonly database: string, readonly name: string, readonly options: BsonDocument = {}) {
    this.indexes = new IndexCatalog(`${database}.${name}`);
  }

  get namespace(): string {
    return `${this.database}.${this.name}`;
  }

  get size(): number {
    return this.docs.length;
  }

  all(): readonly BsonDocument[] {
    return this.docs;
  }

  /** Matching documents in natural order. */
  matching(filter: unknown): BsonDocument[] {
    const matches = compileFilter(filter);
    return this.docs.filter((doc) => matches(doc));
  }

  /** Stores a new document; throws DuplicateKey without storing anything. */
  insert(doc: BsonDocument): void {
    this.indexes.check(doc);
    this.indexes.add(doc);
    this.docs.push(doc);
  }

  /** Swaps `previous` for `next` in place (same natural position); throws DuplicateKey first. */
  replace(previous: BsonDocument, next: BsonDocument): void {
    const position = this.docs.indexOf(previous);
    if (position < 0) throw new Error('replace: document is not in the collection');
    this.indexes.check(next, previous);
    this.indexes.remove(previous);
    this.indexes.add(next);
    this.docs[position] = next;
  }

  remove(doc: BsonDocument): void {
    const position = this.docs.indexOf(doc);
    if (position < 0) return;
    this.indexes.remove(doc);
    this.docs.splice(position, 1);
  }
}
