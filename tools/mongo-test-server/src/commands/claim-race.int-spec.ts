/**
 * Leases rest on findOneAndUpdate being atomic: when several workers race to claim the same
 * documents, each document is claimed exactly once, and a conditional takeover succeeds only for
 * the one caller whose condition still holds. Several clients (separate connection pools) race here.
 */
import { MongoClient } from 'mongodb';
import { openDriverDatabase, type AnyDoc, type DriverDatabase } from '../testing/driver-database.fixture';

const WORKERS = 6;
const JOBS = 25;

describe('concurrent findOneAndUpdate claims', () => {
  let mongo: DriverDatabase;
  const clients: MongoClient[] = [];

  beforeAll(async () => {
    mongo = await openDriverDatabase('mts-claims');
    for (let i = 0; i < WORKERS; i++) clients.push(await new MongoClient(mongo.target.uri, { maxPoolSize: 4 }).connect());
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await mongo?.close();
  });

  it('claims every pending document exactly once, however many workers race', async () => {
    const name = mongo.fresh().collectionName;
    await mongo.db.collection<AnyDoc>(name).insertMany(Array.from({ length: JOBS }, (_, i) => ({ _id: i, status: 'pending' })));
    const claimAll = async (worker: number): Promise<number[]> => {
      const jobs = clients[worker].db(mongo.db.databaseName).collection<{ _id: number; status: string; owner?: number }>(name);
      const claimed: number[] = [];
      for (;;) {
        const doc = await jobs.findOneAndUpdate(
          { status: 'pending' },
          { $set: { status: 'processing', owner: worker } },
          { returnDocument: 'after', sort: { _id: 1 } },
        );
        if (doc === null) return claimed;
        expect(doc.owner).toBe(worker);
        claimed.push(doc._id);
      }
    };
    const results = await Promise.all(Array.from({ length: WORKERS }, (_, worker) => claimAll(worker)));
    const all = results.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: JOBS }, (_, i) => i));
    const stored = await mongo.db.collection<AnyDoc>(name).find({}).toArray();
    for (const doc of stored) expect(results[doc.owner as number]).toContain(doc._id);
  });

  it('lets exactly one of many racing takeovers of an expired lease win', async () => {
    const name = mongo.fresh().collectionName;
    const expired = new Date(Date.UTC(2020, 0, 1));
    await mongo.db.collection<AnyDoc>(name).insertOne({ _id: 'job', status: 'processing', lease: { token: 'old', expires_at: expired } });
    const attempts = Array.from({ length: WORKERS * 3 }, (_, i) =>
      clients[i % WORKERS]
        .db(mongo.db.databaseName)
        .collection<AnyDoc>(name)
        .findOneAndUpdate(
          { _id: 'job', 'lease.token': 'old', 'lease.expires_at': { $lt: new Date() } },
          { $set: { lease: { token: `new-${i}`, expires_at: new Date(Date.now() + 60_000) } } },
          { returnDocument: 'after' },
        ),
    );
    const winners = (await Promise.all(attempts)).filter((doc) => doc !== null);
    expect(winners).toHaveLength(1);
    const stored = await mongo.db.collection<AnyDoc>(name).findOne({ _id: 'job' });
    expect(stored?.lease.token).toBe((winners[0]).lease.token);
  });

  it('saw no unknown command', () => {
    expect(mongo.target.unknownCommands()).toEqual([]);
  });
});
