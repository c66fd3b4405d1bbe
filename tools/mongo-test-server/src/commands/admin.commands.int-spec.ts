import { randomUUID } from 'node:crypto';
import { openDriverDatabase, type DriverDatabase } from '../testing/driver-database.fixture';

describe('admin and collection commands through the mongodb driver', () => {
  let mongo: DriverDatabase;

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-admin');
  });

  afterAll(() => mongo?.close());

  it('answers hello as a writable standalone on wire version 21 or later', async () => {
    const hello = await mongo.db.admin().command({ hello: 1 });
    expect(hello).toMatchObject({ ok: 1, isWritablePrimary: true, maxBsonObjectSize: 16 * 1024 * 1024, maxWriteBatchSize: 100_000 });
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(21);
    expect(hello.localTime).toBeInstanceOf(Date);
    expect(typeof hello.connectionId).toBe('number');
    expect(await mongo.db.admin().command({ isMaster: 1 })).toMatchObject({ ismaster: true });
    expect(await mongo.db.admin().command({ ismaster: 1 })).toMatchObject({ ismaster: true });
  });

  it('answers ping, buildInfo and getParameter', async () => {
    expect(await mongo.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    const info = await mongo.db.admin().buildInfo();
    expect(info.versionArray[0]).toBeGreaterThanOrEqual(7);
    const fcv = await mongo.db.admin().command({ getParameter: 1, featureCompatibilityVersion: 1 });
    expect(fcv.featureCompatibilityVersion.version).toMatch(/^\d+\.\d+$/);
  });

  it('creates a collection, refusing a second create with NamespaceExists (48)', async () => {
    await mongo.db.createCollection('made');
    await expect(mongo.db.command({ create: 'made' })).rejects.toMatchObject({ code: 48, codeName: 'NamespaceExists' });
  });

  it('lists collections with a filter and nameOnly', async () => {
    await mongo.db.collection('listed').insertOne({ a: 1 });
    const all = await mongo.db.listCollections().toArray();
    expect(all.map((c) => c.name)).toEqual(expect.arrayContaining(['made', 'listed']));
    const filtered = await mongo.db.listCollections({ name: 'listed' }, { nameOnly: true }).toArray();
    expect(filtered).toEqual([{ name: 'listed', type: 'collection' }]);
    const [full] = await mongo.db.listCollections({ name: 'listed' }).toArray();
    expect(full).toMatchObject({ name: 'listed', type: 'collection', options: {}, info: { readOnly: false } });
  });

  it('lists the database once it holds a collection', async () => {
    const { databases } = await mongo.db.admin().listDatabases({ nameOnly: true });
    expect(databases.map((d) => d.name)).toContain(mongo.db.databaseName);
  });

  it('drops a collection, and treats dropping a missing one as done', async () => {
    await mongo.db.collection('gone').insertOne({ a: 1 });
    expect(await mongo.db.collection('gone').drop()).toBe(true);
    expect(await mongo.db.listCollections({ name: 'gone' }).toArray()).toEqual([]);
    await expect(mongo.db.command({ drop: 'never-existed' })).resolves.toMatchObject({ ok: 1 });
  });

  it('drops a whole database', async () => {
    const other = mongo.client.db(`mts-admin-drop-${randomUUID().slice(0, 8)}`);
    await other.collection('x').insertOne({ a: 1 });
    expect(await other.dropDatabase()).toBe(true);
    expect(await other.listCollections().toArray()).toEqual([]);
  });

  it('accepts endSessions and session fields on commands', async () => {
    const session = mongo.client.startSession();
    await mongo.db.collection('sessions').insertOne({ a: 1 }, { session });
    expect(await mongo.db.collection('sessions').countDocuments({}, { session })).toBe(1);
    await session.endSession();
    await expect(mongo.db.admin().command({ endSessions: [session.id] })).resolves.toMatchObject({ ok: 1 });
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
