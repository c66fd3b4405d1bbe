import type { BsonDocument } from '../bson/bson-values';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError } from '../commands/command-error';
import { COMPARED_OPTIONS, ID_INDEX, type IndexSpec } from './index-definition';
import { UniqueKeyIndex } from './unique-key-index';

export type CreateIndexOutcome = 'created' | 'exists';

/** The indexes of one collection. Only unique ones do work; the rest exist to be listed back. */
export class IndexCatalog {
  private specs: IndexSpec[] = [ID_INDEX];
  private enforcers = new Map<string, UniqueKeyIndex>();

  constructor(private readonly namespace: string) {
    this.enforcers.set(ID_INDEX.name, new UniqueKeyIndex({ ...ID_INDEX, unique: true }, namespace));
  }

  list(): readonly IndexSpec[] {
    return this.specs;
  }

  find(name: string): IndexSpec | undefined {
    return this.specs.find((spec) => spec.name === name);
  }

  /** Validates against the existing indexes (codes 85/86 as MongoDB), then builds over `docs`. */
  create(spec: IndexSpec, docs: readonly BsonDocument[]): CreateIndexOutcome {
    const sameName = this.find(spec.name);
    if (sameName) {
      if (canonicalKey(sameName.key) !== canonicalKey(spec.key)) {
        throw new CommandError('IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. Requested index: ${spec.name}, existing index: ${sameName.name}`);
      }
      if (!sameOptions(sameName, spec)) {
        throw new CommandError('IndexOptionsConflict', `Index with name: ${spec.name} already exists with different options`);
      }
      return 'exists';
    }
    const sameKey = this.specs.find((existing) => canonicalKey(existing.key) === canonicalKey(spec.key)
      && canonicalKey(existing.partialFilterExpression) === canonicalKey(spec.partialFilterExpression));
    if (sameKey) {
      const what = sameOptions(sameKey, spec) ? 'a different name' : 'different options';
      throw new CommandError('IndexOptionsConflict', `Index already exists with ${what}: ${sameKey.name}`);
    }
    if (spec.unique) {
      const enforcer = new UniqueKeyIndex(spec, this.namespace);
      enforcer.build(docs); // throws DuplicateKey before anything is registered
      this.enforcers.set(spec.name, enforcer);
    }
    this.specs = [...this.specs, spec];
    return 'created';
  }

  drop(name: string): void {
    if (name === ID_INDEX.name) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    if (!this.find(name)) throw new CommandError('IndexNotFound', `index not found with name [${name}]`);
    this.specs = this.specs.filter((spec) => spec.name !== name);
    this.enforcers.delete(name);
  }

  dropAllButId(): void {
    this.specs = [ID_INDEX];
    this.enforcers = new Map([...this.enforcers].filter(([name]) => name === ID_INDEX.name));
  }

  /** Throws DuplicateKey if `doc` cannot be stored (in place of `replacing`, for an update). */
  check(doc: BsonDocument, replacing?: BsonDocument): void {
    for (const enforcer of this.enforcers.values()) enforcer.check(doc, replacing);
  }

  add(doc: BsonDocument): void {
    for (const enforcer of this.enforcers.values()) enforcer.add(doc);
  }

  remove(doc: BsonDocument): void {
    for (const enforcer of this.enforcers.values()) enforcer.remove(doc);
  }
}

function sameOptions(a: IndexSpec, b: IndexSpec): boolean {
  return COMPARED_OPTIONS.every((option) => canonicalKey(normalizeOption(a[option])) === canonicalKey(normalizeOption(b[option])));
}

/** `unique: false` and an absent `unique` mean the same index. */
function normalizeOption(value: unknown): unknown {
  return value === false ? undefined : value;
}
