import { startMongoTestServer } from '../server/mongo-test-server';

/** Where an integration suite should send its MongoDB traffic. */
export interface MongoTestTarget {
  readonly uri: string;
  /** True when MONGO_TEST_URI points at a real server; the in-memory server is not running then. */
  readonly external: boolean;
  /** Stops the in-memory server; a no-op for an external one (drop your database yourself). */
  close(): Promise<void>;
  /** Commands the in-memory server did not know; always empty for an external server. */
  unknownCommands(): readonly string[];
}

/**
 * The one place that reads the environment. This is test infrastructure, not libs/ or apps/: it
 * lets every Mongo integration suite run against a real mongod (MONGO_TEST_URI) from time to
 * time, to catch where the in-memory server drifts from MongoDB, without changing the suites.
 */
export async function withMongo(): Promise<MongoTestTarget> {
  const external = process.env.MONGO_TEST_URI;
  if (external !== undefined && external !== '') {
    return { uri: external, external: true, close: () => Promise.resolve(), unknownCommands: () => [] };
  }
  const server = await startMongoTestServer();
  return { uri: server.uri, external: false, close: () => server.close(), unknownCommands: () => server.unknownCommands() };
}
