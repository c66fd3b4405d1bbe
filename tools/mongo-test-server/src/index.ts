export { startMongoTestServer, type MongoTestServer, type MongoTestServerOptions } from './server/mongo-test-server';
export { withMongo, type MongoTestTarget } from './testing/with-mongo';
