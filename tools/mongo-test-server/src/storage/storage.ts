import type { BsonDocument } from '../bson/bson-values';
import { CommandError } from '../commands/command-error';
import { Collection } from './collection';

const INVALID_DATABASE_CHARS = /[/\\. "$*<>:|?\0]/;

/** Every database and collection, in memory. Databases exist while they hold a collection. */
export class Storage {
  private readonly databases = new Map<string, Map<string, Collection>>();

  collection(database: string, name: string): Collection | undefined {
    return this.databases.get(database)?.get(name);
  }

  /** The collection, created implicitly as MongoDB does on the first write. */
  ensureCollection(database: string, name: string): { collection: Collection; created: boolean } {
    const existing = this.collection(database, name);
    if (existing) return { collection: existing, created: false };
    return { collection: this.createCollection(database, name, {}), created: true };
  }

  createCollection(database: string, name: string, options: BsonDocument): Collection {
    validateNamespace(database, name);
    if (this.collection(database, name)) {
      throw new CommandError('NamespaceExists', `Collection ${database}.${name} already exists.`);
    }
    let collections = this.databases.get(database);
    if (!collections) {
      collections = new Map();
      this.databases.set(database, collections);
    }
    const collection = new Collection(database, name, options);
    collections.set(name, collection);
    return collection;
  }

  dropCollection(database: string, name: string): Collection | undefined {
    const collections = this.databases.get(database);
    const collection = collections?.get(name);
    if (!collections || !collection) return undefined;
    collections.delete(name);
    if (collections.size === 0) this.databases.delete(database);
    return collection;
  }

  dropDatabase(database: string): void {
    this.databases.delete(database);
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }

  collections(database: string): Collection[] {
    return [...(this.databases.get(database)?.values() ?? [])];
  }
}

function validateNamespace(database: string, name: string): void {
  if (database.length === 0 || database.length > 63 || INVALID_DATABASE_CHARS.test(database)) {
    throw new CommandError('InvalidNamespace', `Invalid database name: '${database}'`);
  }
  if (name.length === 0 || name.includes('$') || name.includes('\0') || name.startsWith('.')) {
    throw new CommandError('InvalidNamespace', `Invalid collection name: '${name}'`);
  }
}
