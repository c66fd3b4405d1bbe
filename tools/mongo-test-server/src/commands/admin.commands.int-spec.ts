import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { withMongo, type MongoTestTarget } from '../testing/with-mongo';

describe('admin and collection commands through the mongodb driver', () => {
  let target: MongoTestTarget;
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    target = await withMongo();
    client = await new MongoClient(target.uri).connect();
    db = client.db(`mts-admin-${randomUUID().slice(0, 8)}`);
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
    await target?.close();
  });

  it('answers hello as a writable standalone on wire version 21 or later', async () => {
    const hello = await db.admin().command({ hello: 1 });
    expect(hello).toMatchObject({ ok: 1, isWritablePrimary: true, maxBsonObjectSize: 16 * 1024 * 1024, maxWriteBatchSize: 100_000 });
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(21);
    expect(hello.localTime).toBeInstanceOf(Date);
    expect(typeof hello.connectionId).toBe('number');
    expect(await db.admin().command({ isMaster: 1 })).toMatchObject({ ismaster: true });
    expect(await db.admin().command({ ismaster: 1 })).toMatchObject({ ismaster: true });
  });

  it('answers ping, buildInfo and getParameter', async () => {
    expect(await db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    const info = await db.admin().buildInfo();
    expect(info.versionArray[0]).toBeGreaterThanOrEqual(7);
    const fcv = await db.admin().command({ getParameter: 1, featureCompatibilityVersion: 1 });
    expect(fcv.featureCompatibilityVersion.version).toMatch(/^\d+\.\d+$/);
  });

  it('creates a collection, refusing a second create with NamespaceExists (48)', async () => {
    await db.createCollection('made');
    await expect(db.command({ create: 'made' })).rejects.toMatchObject({ code: 48, codeName: 'NamespaceExists' });
  });

  it('lists collections with a filter and nameOnly', async () => {
    await db.collection('listed').insertOne({ a: 1 });
    const all = await db.listCollections().toArray();
    expect(all.map((c) => c.name)).toEqual(expect.arrayContaining(['made', 'listed']));
    const filtered = await db.listCollections({ name: 'listed' }, { nameOnly: true }).toArray();
    expect(filtered).toEqual([{ name: 'listed', type: 'collection' }]);
    const [full] = await db.listCollections({ name: 'listed' }).toArray();
    expect(full).toMatchObject({ name: 'listed', type: 'collection', options: {}, info: { readOnly: false } });
  });

  it('lists the database once it holds a collection', async () => {
    const { databases } = await db.admin().listDatabases({ nameOnly: true });
    expect(databases.map((d) => d.name)).toContain(db.databaseName);
  });

  it('drops a collection, and treats dropping a missing one as done', async () => {
    await db.collection('gone').insertOne({ a: 1 });
    expect(await db.collection('gone').drop()).toBe(true);
    expect(await db.listCollections({ name: 'gone' }).toArray()).toEqual([]);
    await expect(db.command({ drop: 'never-existed' })).resolves.toMatchObject({ ok: 1 });
  });

  it('drops a whole database', async () => {
    const other = client.db(`mts-admin-drop-${randomUUID().slice(0, 8)}`);
    await other.collection('x').insertOne({ a: 1 });
    expect(await other.dropDatabase()).toBe(true);
    expect(await other.listCollections().toArray()).toEqual([]);
  });

  it('accepts endSessions and session fields on commands', async () => {
    const session = client.startSession();
    await db.collection('sessions').insertOne({ a: 1 }, { session });
    expect(await db.collection('sessions').countDocuments({}, { session })).toBe(1);
    await session.endSession();
    await expect(db.admin().command({ endSessions: [session.id] })).resolves.toMatchObject({ ok: 1 });
  });

  it('saw no unknown command', () => {
    expect(target.unknownCommands()).toEqual([]);
  });
});
