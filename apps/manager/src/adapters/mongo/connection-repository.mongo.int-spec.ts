import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { withMongo, type MongoTestTarget } from '@fetcher/mongo-test-server';
import mongoose, { type Connection } from 'mongoose';
import { connectionRepositoryContract } from '../../testing/connection-repository.contract';
import { MongoConnectionRepository } from './connection-repository.mongo';
import { CONNECTION_MODEL, ConnectionSchema } from './connection.schema';

describe('MongoConnectionRepository against the MongoDB test server', () => {
  let target: MongoTestTarget;
  let connection: Connection | undefined;

  beforeAll(async () => {
    target = await withMongo();
  });
  afterAll(async () => {
    await target.close();
  });
  afterEach(async () => {
    await connection?.dropDatabase();
    await connection?.close();
    connection = undefined;
  });

  describe('the connection repository contract', () => {
    // A database per test, with the indexes the Manager creates at startup.
    connectionRepositoryContract(async () => {
      connection = await mongoose.createConnection(target.uri, { dbName: `connections_it_${randomUUID().slice(0, 8)}` }).asPromise();
      const sut = new MongoConnectionRepository(connection.model(CONNECTION_MODEL, ConnectionSchema) as unknown as mongoose.Model<unknown>);
      await sut.onModuleInit();
      return sut;
    });
  });

  it('used only commands the server knows', () => expect(target.unknownCommands()).toEqual([]));
});
