import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import { CONNECTION_COLLECTION, encodeConnection } from '@fetcher/contracts';
import { type Db, MongoClient } from 'mongodb';
import { connectionResolverContract } from '../../testing/connection-resolver.contract';
import { MongoConnectionResolver } from './connection-resolver.mongo';

describe('MongoConnectionResolver against the MongoDB test server', () => {
  let target: MongoTestTarget;
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    target = await withMongo();
    client = await new MongoClient(target.uri).connect();
    db = client.db(`worker_connections_${randomUUID().slice(0, 8)}`);
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    await target?.close();
  });

  describe('the connection resolver contract', () => {
    // The documents as the Manager writes them (the shared codec); a soft delete sets `deleted_at`.
    connectionResolverContract(({ ring, internal }) => ({
      resolver: new MongoConnectionResolver(db, ring, internal),
      store: async (connection, options) => {
        const doc = encodeConnection(connection);
        // The codec never writes plaintext PEM; records of the original service have it as `ssl.ca/cert/key`.
        const { legacyCa, legacyCert, legacyKey } = connection.ssl ?? {};
        if (doc.ssl) Object.assign(doc.ssl as object, legacyCa ? { ca: legacyCa } : {}, legacyCert ? { cert: legacyCert } : {}, legacyKey ? { key: legacyKey } : {});
        if (options?.deleted) doc.deleted_at = connection.updatedAt;
        await db.collection(CONNECTION_COLLECTION).insertOne(doc);
      },
    }));
  });
});
