/**
 * Incremental extraction through the engine against a MongoDB wire-protocol server (the in-memory
 * test server from tools/mongo-test-server, or a real mongod when MONGO_TEST_URI is set): chained
 * jobs with limits that cut a block of documents sharing one date, inserts and updates between jobs,
 * `_id` (an ObjectId) as the default tie-breaker, string cursors by code point, NULL cursors first.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { createEngine, createTenantContext, EngineError, IncrementalText, incrementalText, type CursorPosition, type ExtractionRequest } from '@fetcher/engine';
import { MemoryConnectionStore, MemoryConnectorRegistry } from '@fetcher/engine/memory';
import type { ConnectorOptions } from '../common/options';
import { MongoConnectorFactory } from './connector-factory.mongodb';

const DATABASE = `fetcher_inc_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const TENANT = createTenantContext('acme');
const OPTIONS: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: ['127.0.0.1/32', '::1/128', 'localhost'] } };
const TIE = new Date('2026-03-01T08:00:00.123Z');
/** ObjectIds whose hex order is not their insertion order. */
/** 2026-05-01T00:00:00Z plus `seconds`. */
const tick = (seconds: number) => new Date(Date.UTC(2026, 4, 1) + seconds * 1000);
const oid = (n: number) => ObjectId.createFromHexString(((n * 7919) % 100_003).toString(16).padStart(24, '0'));

describe('MongoDB incremental extraction through the engine', () => {
  let server: MongoTestServer | undefined;
  let client: MongoClient;
  let db: Db;
  // A fresh engine (and connector) per job: the connector caches what it inferred, as a Worker's job does.
  const engine = () => {
    const registry = new MemoryConnectorRegistry().register('MONGODB', new MongoConnectorFactory(OPTIONS));
    return { engine: createEngine({ connectorRegistry: registry, connectionStore: store }), registry };
  };
  const store = new MemoryConnectionStore();

  beforeAll(async () => {
    // Test code may read the environment: it picks the server, as the connector's own int spec does.
    const external = process.env.MONGO_TEST_URI;
    if (external === undefined || external === '') server = await startMongoTestServer();
    client = new MongoClient(external || server!.uri);
    await client.connect();
    db = client.db(DATABASE);
    const parsed = client.options;
    await db.collection('events').insertMany([
      // 300 documents share one date; then one earlier and one later.
      ...Array.from({ length: 300 }, (_, i) => ({ _id: oid(i + 1), at: TIE, name: `n${String(i).padStart(3, '0')}` })),
      { _id: oid(1000), at: new Date('2026-03-01T07:00:00Z'), name: 'Zed' },
      { _id: oid(1001), at: new Date('2026-03-01T09:00:00Z'), name: 'éa' },
    ]);
    await db.collection<{ _id: number; at: Date }>('ticks').insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i + 1, at: tick(i + 1) })));
    await db.collection<{ _id: number; v?: number | null }>('sparse').insertMany([{ _id: 1, v: null }, { _id: 2, v: 5 }, { _id: 3 }, { _id: 4, v: 1 }]);
    await store.create(TENANT, {
      configName: 'crm', type: 'MONGODB', host: parsed.hosts[0].host!, port: parsed.hosts[0].port!, databaseName: DATABASE,
      userName: parsed.credentials?.username ?? '', sslMode: parsed.tls ? 'true' : '',
      hostAttributes: parsed.credentials?.source ? { metadata: { authSource: parsed.credentials.source } } : {},
      secrets: { password: parsed.credentials?.password ?? '' },
    });
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    await server?.close();
  });

  async function job(incremental: Record<string, unknown>, table = 'events'): Promise<{ ids: string[]; cursor: CursorPosition | null | undefined }> {
    const request = { mappedFields: { crm: { [table]: ['_id'] } }, incremental: { crm: { [table]: incremental } } } as unknown as ExtractionRequest;
    const { engine: sut } = engine();
    const result = await sut.executeExtraction(await sut.planExtraction(TENANT, request));
    const rows = (JSON.parse(new TextDecoder().decode(result.direct?.data)) as { crm: Record<string, { _id: unknown }[]> }).crm[table];
    return { ids: rows.map((r) => String(r._id)), cursor: result.cursors?.crm[table] };
  }

  it('reports _id as the primary key, nullability from the sample and strings by code point', async () => {
    const snapshot = await engine().engine.discoverSchemaFresh(TENANT, 'crm');
    const events = snapshot.tables.find((t) => t.name === 'events')!;
    expect(events.primaryKey).toEqual(['_id']);
    expect(events.columns).toEqual(
      expect.arrayContaining([
        { name: '_id', kind: 'objectId', nativeType: 'objectId', nullable: false },
        { name: 'name', kind: 'string', nativeType: 'string', nullable: false, ordering: 'binary' },
      ]),
    );
    expect(snapshot.tables.find((t) => t.name === 'sparse')?.columns).toEqual(expect.arrayContaining([{ name: 'v', kind: 'float', nativeType: 'number', nullable: true }]));
  });

  it('chains jobs across documents sharing one date, with an insert and an update in between: every version once', async () => {
    const seen = new Map<string, number>();
    const record = (ids: string[]) => ids.forEach((id) => seen.set(id, (seen.get(id) ?? 0) + 1));
    const first = await job({ cursorField: 'at', limit: 120 });
    expect(first.ids[0]).toBe(oid(1000).toHexString()); // 07:00, before the block
    expect(first.cursor).toEqual({ value: '2026-03-01T08:00:00.123Z', key: expect.any(String) });
    record(first.ids);
    const second = await job({ cursorField: 'at', limit: 120, after: first.cursor });
    record(second.ids);
    await db.collection('events').insertOne({ _id: oid(2000), at: new Date(), name: 'new' });
    await db.collection('events').updateOne({ _id: oid(1000) }, { $set: { at: new Date(Date.now() + 1000), name: 'Zed2' } });
    const third = await job({ cursorField: 'at', after: second.cursor });
    record(third.ids);
    expect([first.ids.length, second.ids.length, third.ids.length]).toEqual([120, 120, 64]); // 61 of the block, 09:00, then the two written later
    expect(third.ids.slice(-3)).toEqual([oid(1001), oid(2000), oid(1000)].map((id) => id.toHexString()));
    const all = await db.collection('events').find({}, { projection: { _id: 1 } }).toArray();
    expect([...seen.keys()].sort()).toEqual(all.map((d) => d._id.toHexString()).sort());
    expect([...seen].filter(([, n]) => n > 1)).toEqual([[oid(1000).toHexString(), 2]]);
    expect(await job({ cursorField: 'at', after: third.cursor })).toEqual({ ids: [], cursor: third.cursor });
  });

  it('orders a string cursor by code point, reads null and missing cursors first with nulls "first", and refuses a nullable cursor without it', async () => {
    const byName = await job({ cursorField: 'name', after: { value: 'n298', key: 'ffffffffffffffffffffffff' } });
    expect(byName.ids).toEqual([oid(300), oid(2000), oid(1001)].map((id) => id.toHexString())); // 'n299', 'new', then 'éa'
    const nulls = await job({ cursorField: 'v', nulls: 'first', limit: 1 }, 'sparse');
    expect(nulls).toEqual({ ids: ['1'], cursor: { value: null, key: 1 } });
    const rest = await job({ cursorField: 'v', nulls: 'first', after: nulls.cursor }, 'sparse');
    expect(rest.ids).toEqual(['3', '4', '2']);
    await expect(engine().engine.planExtraction(TENANT, { mappedFields: { crm: { sparse: ['_id'] } }, incremental: { crm: { sparse: { cursorField: 'v' } } } })).rejects.toEqual(
      new EngineError('validation', incrementalText(IncrementalText.nullableCursor, 'crm.sparse.v')),
    );
  });

  it('re-reads exactly the lag window behind a date cursor, late documents included', async () => {
    const first = await job({ cursorField: 'at' }, 'ticks');
    expect(first.cursor).toEqual({ value: '2026-05-01T00:00:20Z', key: 20 }); // a number _id is a float key, reported as a number
    await db.collection<{ _id: number; at: Date }>('ticks').insertMany([{ _id: 101, at: tick(17.5) }, { _id: 102, at: tick(10) }, { _id: 103, at: tick(30) }]);
    const second = await job({ cursorField: 'at', lag: 4.5, after: first.cursor }, 'ticks');
    expect(second.ids).toEqual(['16', '17', '101', '18', '19', '20', '103']); // from 00:00:15.5
    expect(second.cursor).toEqual({ value: '2026-05-01T00:00:30Z', key: 103 });
  });
});
