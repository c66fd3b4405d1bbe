import { withMongo } from './with-mongo';

describe(withMongo.name, () => {
  const saved = process.env.MONGO_TEST_URI;
  afterEach(() => {
    if (saved === undefined) delete process.env.MONGO_TEST_URI;
    else process.env.MONGO_TEST_URI = saved;
  });

  it('hands out MONGO_TEST_URI unchanged and starts nothing when it is set', async () => {
    process.env.MONGO_TEST_URI = 'mongodb://mongo.example:27017/?replicaSet=rs0';
    const target = await withMongo();
    expect(target).toMatchObject({ uri: 'mongodb://mongo.example:27017/?replicaSet=rs0', external: true });
    expect(target.unknownCommands()).toEqual([]);
    await expect(target.close()).resolves.toBeUndefined();
  });
});
