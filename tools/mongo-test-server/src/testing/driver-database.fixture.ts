import { randomUUID } from 'node:crypto';
import { MongoClient, type Collection, type Db, type MongoClientOptions } from 'mongodb';
import { withMongo, type MongoTestTarget } from './with-mongo';

// The driver's schema typing is not what the suites exercise; documents of every shape go through.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDoc = any;

/** One integration suite's own database, reached through the mongodb driver. */
export interface DriverDatabase {
  readonly target: MongoTestTarget;
  readonly client: MongoClient;
  readonly db: Db;
  /** A collection with a new random name. */
  fresh(): Collection<AnyDoc>;
  /** Drops the database, then closes the client and the target (the in-memory server stops). */
  close(): Promise<void>;
}

export interface DriverDatabaseOptions {
  readonly clientOptions?: MongoClientOptions;
  /** Runs before the client connects, so that a listener (command monitoring) sees every command. */
  readonly beforeConnect?: (client: MongoClient) => void;
}

/**
 * Starts the in-memory server (or takes MONGO_TEST_URI's, see withMongo), connects a client and
 * names a database `<prefix>-<random>`. Call close() in afterAll. Kept out of the package build:
 * only integration suites use it, and the package does not depend on the driver.
 */
export async function openDriverDatabase(prefix: string, options: DriverDatabaseOptions = {}): Promise<DriverDatabase> {
  const target = await withMongo();
  const client = new MongoClient(target.uri, options.clientOptions);
  try {
    options.beforeConnect?.(client);
    await client.connect();
  } catch (error) {
    // Nothing is returned to close, so stop the server here or jest would not exit.
    await client.close().catch(() => undefined);
    await target.close();
    throw error;
  }
  const db = client.db(`${prefix}-${randomUUID().slice(0, 8)}`);
  return {
    target,
    client,
    db,
    fresh: () => db.collection<AnyDoc>(`c${randomUUID().slice(0, 8)}`),
    close: async () => {
      await db.dropDatabase();
      await client.close();
      await target.close();
    },
  };
}
