// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestServer, startMongoTestServer } from '@fetcher/mongo-test-server';
import { aPostgresConnection, ManagerHarness } from '../testing/manager-harness';

const BASE = '/v1/management/connections';

describe('when MongoDB goes away', () => {
  let mongo: MongoTestServer;
  let sut: ManagerHarness;
  beforeAll(async () => {
    // Its own server (not MONGO_TEST_URI): this suite stops it.
    mongo = await startMongoTestServer();
    sut = await ManagerHarness.start(mongo.uri);
  });
  afterAll(async () => {
    await sut?.close();
    await mongo?.close();
  });

  it('answers connection routes with 503/FET-0003 and no driver text', async () => {
    const created = await sut.create(aPostgresConnection());
    await mongo.close();
    for (const [method, path] of [
      ['GET', BASE],
      ['GET', `${BASE}/${created.id as string}`],
    ] as const) {
      const res = await sut.request(method, path);
      expect(res.status).toBe(503);
      expect(res.json()).toEqual({
        code: 'FET-0003',
        title: 'Service Unavailable',
        message:
          'The server is currently unable to handle the request due to temporary overloading or maintenance of the server. Please try again later.',
      });
    }
    const create = await sut.request('POST', BASE, { headers: { 'x-product-name': 'p' }, body: aPostgresConnection() });
    expect(create.status).toBe(503);
  });
});
