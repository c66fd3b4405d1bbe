import { Long, type CommandStartedEvent } from 'mongodb';
import { openDriverDatabase, type DriverDatabase } from '../testing/driver-database.fixture';

describe('cursor commands through the mongodb driver', () => {
  let mongo: DriverDatabase;
  const started: CommandStartedEvent[] = [];

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-cursor', {
      clientOptions: { monitorCommands: true },
      beforeConnect: (client) => client.on('commandStarted', (event) => started.push(event)),
    });
    await mongo.db.collection('numbers').insertMany(Array.from({ length: 25 }, (_, i) => ({ i })));
  });

  afterAll(() => mongo?.close());

  const commandsNamed = (name: string): CommandStartedEvent[] => started.filter((event) => event.commandName === name);

  it('reads one cursor over three batches: find, then two getMores', async () => {
    started.length = 0;
    const seen = await mongo.db.collection('numbers').find({}, { batchSize: 10 }).sort({ i: 1 }).map((d) => d.i as number).toArray();
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(commandsNamed('find')).toHaveLength(1);
    expect(commandsNamed('getMore')).toHaveLength(2);
  });

  it('returns 101 documents in the first batch by default and the rest on getMore', async () => {
    const coll = mongo.db.collection('many');
    await coll.insertMany(Array.from({ length: 150 }, (_, i) => ({ i })));
    // promoteLongs off shows what is on the wire: cursor ids are 64-bit integers.
    const first = await mongo.db.command({ find: 'many', filter: {} }, { promoteLongs: false });
    expect(first.cursor.firstBatch).toHaveLength(101);
    expect(first.cursor.id).toBeInstanceOf(Long);
    const more = await mongo.db.command({ getMore: first.cursor.id, collection: 'many' });
    expect(more.cursor.nextBatch).toHaveLength(49);
    expect(Number(more.cursor.id)).toBe(0);
  });

  it('closes the cursor with id 0 when the first batch holds everything', async () => {
    const reply = await mongo.db.command({ find: 'numbers', filter: { i: { $lt: 5 } } });
    expect(reply.cursor.firstBatch).toHaveLength(5);
    expect(Number(reply.cursor.id)).toBe(0);
  });

  it('gives a single batch for a negative limit and for singleBatch', async () => {
    const negative = await mongo.db.command({ find: 'numbers', filter: {}, limit: -3 });
    expect(negative.cursor.firstBatch).toHaveLength(3);
    expect(Number(negative.cursor.id)).toBe(0);
    const single = await mongo.db.command({ find: 'numbers', filter: {}, batchSize: 4, singleBatch: true });
    expect(single.cursor.firstBatch).toHaveLength(4);
    expect(Number(single.cursor.id)).toBe(0);
  });

  it('kills a cursor, after which getMore answers CursorNotFound (43)', async () => {
    const reply = await mongo.db.command({ find: 'numbers', filter: {}, batchSize: 2 });
    const id = reply.cursor.id as Long;
    expect(await mongo.db.command({ killCursors: 'numbers', cursors: [id] })).toMatchObject({ cursorsKilled: [id], cursorsNotFound: [] });
    await expect(mongo.db.command({ getMore: id, collection: 'numbers' })).rejects.toMatchObject({ code: 43 });
  });

  it('releases the server cursor when the driver closes one early', async () => {
    started.length = 0;
    const cursor = mongo.db.collection('numbers').find({}, { batchSize: 5 });
    await cursor.next();
    await cursor.close();
    expect(commandsNamed('killCursors')).toHaveLength(1);
  });

  it('honours batchSize on getMore', async () => {
    const first = await mongo.db.command({ find: 'numbers', filter: {}, batchSize: 0 });
    expect(first.cursor.firstBatch).toHaveLength(0);
    const next = await mongo.db.command({ getMore: first.cursor.id, collection: 'numbers', batchSize: 7 });
    expect(next.cursor.nextBatch).toHaveLength(7);
    await mongo.db.command({ killCursors: 'numbers', cursors: [first.cursor.id] });
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
