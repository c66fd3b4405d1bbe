/**
 * The MongoDB connector against a MongoDB wire-protocol server: the in-memory test server from
 * tools/mongo-test-server, or a real mongod when MONGO_TEST_URI is set. Every run seeds its own
 * database (random name) and drops it afterwards.
 */
import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { Binary, Decimal128, Long, MongoClient, ObjectId, UUID, type Db } from 'mongodb';
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import {
  EngineError,
  encodeCanonicalRow,
  type ConnectionDescriptor,
  type FilterCondition,
  type QueryRequest,
  type Row,
} from '@fetcher/engine';
import { HostNotAllowedError } from '../common/errors';
import type { LookupFn } from '../common/host-safety';
import type { ConnectorOptions } from '../common/options';
import { drainRows } from '../testing/drain-cursor';
import type { MongoConnector } from './connector.mongodb';
import { MongoConnectorFactory } from './connector-factory.mongodb';

const PINNED_NAME = 'mongo.fixture.test';
const LOOPBACK_ALLOWLIST = ['127.0.0.1/32', '::1/128', 'localhost'];

const DATABASE = `fetcher_it_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const PERSON_1 = '550e8400-e29b-41d4-a716-446655440000';
const PERSON_2 = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const PERSON_3 = '00000000-0000-4000-8000-000000000003';
const OWNER = ObjectId.createFromHexString('65a1b2c3d4e5f60718293a4b');
const BIG = '9007199254740993'; // 2^53 + 1: not representable as a double
const BIG_COUNT = 700; // more than two batches of 256

let server: MongoTestServer | undefined;
let seedClient: MongoClient;
let target: { host: string; port: number; userName: string; password: string; authSource?: string; tls: boolean };

/** A descriptor for the target server under `host` (default: a name the fake DNS pins to the server). */
function descriptor(overrides: Partial<ConnectionDescriptor> = {}): ConnectionDescriptor {
  return {
    configName: 'crm',
    type: 'MONGODB',
    host: PINNED_NAME,
    port: target.port,
    databaseName: DATABASE,
    userName: target.userName,
    sslMode: target.tls ? 'true' : '',
    hostAttributes: target.authSource ? { metadata: { authSource: target.authSource } } : {},
    secrets: { password: target.password },
    ...overrides,
  };
}

/** DNS for the tests: the fixture name resolves to the server's real host, anything else normally. */
const fakeDns: LookupFn = async (hostname) => {
  const name = hostname === PINNED_NAME ? target.host : hostname;
  const found = await dnsLookup(name, { all: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

const options: ConnectorOptions = { hostSafety: { allowPrivate: true, allowlist: LOOPBACK_ALLOWLIST }, lookup: fakeDns };
const connectors: MongoConnector[] = [];

function connector(d: ConnectionDescriptor = descriptor(), o: ConnectorOptions = options): MongoConnector {
  const built = new MongoConnectorFactory(o).build(d) as MongoConnector;
  connectors.push(built);
  return built;
}

const signal = () => new AbortController().signal;

async function query(sut: MongoConnector, request: Omit<QueryRequest, 'configName'>): Promise<{ table: string; row: Row }[]> {
  return drainRows(await sut.queryStream({ configName: 'crm', ...request }, signal()));
}

/** The `_id`s a filter on `people` selects, sorted. */
async function peopleIds(filters: Record<string, FilterCondition>): Promise<string[]> {
  const rows = await query(shared, { tables: { people: ['_id'] }, filters: { people: filters } });
  return rows.map(({ row }) => row._id as string).sort();
}

let shared: MongoConnector;

async function seed(db: Db): Promise<void> {
  await db.collection<{ _id: UUID } & Record<string, unknown>>('people').insertMany([
    {
      _id: new UUID(PERSON_1),
      name: 'Ana Silva',
      owner: OWNER,
      age: 34,
      balance: Long.fromString(BIG),
      price: Decimal128.fromString('2500.00'),
      createdAt: new Date('2024-01-15T10:20:30.120Z'),
      address: { city: 'Lisboa', geo: { lat: 38.72, lng: -9.14 } },
      tags: ['vip', 'early'],
      note: 'naïve café – 東京 😀',
      avatar: new Binary(Uint8Array.from([0, 1, 2, 250, 251])),
      nothing: null,
      active: true,
    },
    {
      _id: new UUID(PERSON_2),
      name: 'bruno.costa',
      owner: new ObjectId(),
      age: 41,
      balance: Long.fromNumber(10),
      price: Decimal128.fromString('10.5'),
      createdAt: new Date('2024-02-01T00:00:00Z'),
      address: { city: 'Porto' },
      tags: [],
      active: false,
    },
    {
      _id: new UUID(PERSON_3),
      name: 'Carla',
      age: 29,
      createdAt: new Date('2023-12-31T23:59:59.999Z'),
      active: true,
    },
  ]);
  await db.collection('orders').insertMany([
    { _id: ObjectId.createFromHexString('000000000000000000000001'), total: 1.5 },
    { _id: ObjectId.createFromHexString('000000000000000000000002'), total: 2 },
  ]);
  await db.collection<{ _id: number; dotted: string }>('a.b.c').insertOne({ _id: 1, dotted: 'yes' });
  await db.createCollection('empty');
  await db.collection<{ _id: number; n: number }>('big').insertMany(Array.from({ length: BIG_COUNT }, (_, i) => ({ _id: i, n: i })));
}

beforeAll(async () => {
  // Test code may read the environment: it picks the server, as tools/mongo-test-server's withMongo does.
  const external = process.env.MONGO_TEST_URI;
  if (external === undefined || external === '') server = await startMongoTestServer();
  const uri = external || server!.uri;
  seedClient = new MongoClient(uri);
  const parsed = seedClient.options; // parsed without I/O
  target = {
    host: parsed.hosts[0].host!,
    port: parsed.hosts[0].port!,
    userName: parsed.credentials?.username ?? '',
    password: parsed.credentials?.password ?? '',
    ...(parsed.credentials?.source ? { authSource: parsed.credentials.source } : {}),
    tls: parsed.tls,
  };
  await seedClient.connect();
  await seed(seedClient.db(DATABASE));
  shared = connector();
  await shared.testConnection(signal());
});

afterAll(async () => {
  for (const built of connectors) await built.close();
  await seedClient?.db(DATABASE).dropDatabase();
  await seedClient?.close();
  await server?.close();
});

describe('MongoConnector against a MongoDB wire-protocol server', () => {
  it('dials the checked address for a hostname through the lookup hook (the name has no DNS entry)', async () => {
    const sut = connector(descriptor({ host: PINNED_NAME }));
    await expect(sut.testConnection(signal())).resolves.toBeUndefined();
  });

  it('refuses a loopback host without an allowlist entry, before dialling', async () => {
    const sut = connector(descriptor({ host: '127.0.0.1' }), { hostSafety: { allowPrivate: true, allowlist: [] } });
    const error = await sut.testConnection(signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).cause).toBeInstanceOf(HostNotAllowedError);
  });

  it('fails with a fixed connect error when nothing listens', async () => {
    const sut = connector(descriptor({ host: '127.0.0.1', port: 1 }), { ...options, timeouts: { mongoConnectMs: 1000 } });
    await expect(sut.testConnection(signal())).rejects.toMatchObject({
      category: 'connect',
      message: 'failed to connect to datasource',
    });
  });

  it('discovers the collections, normalised, with their inferred top-level fields and kinds', async () => {
    const snapshot = await connector().discoverSchema(signal());
    expect(snapshot.configName).toBe('crm');
    expect(snapshot.tables.map((t) => t.name)).toEqual(['b.c', 'big', 'empty', 'orders', 'people']);
    const people = snapshot.tables.find((t) => t.name === 'people')!;
    expect(people.fields).toEqual([
      '_id', 'active', 'address', 'age', 'avatar', 'balance', 'createdAt', 'name', 'note', 'nothing', 'owner', 'price', 'tags',
    ]);
    const kinds = Object.fromEntries((people.columns ?? []).map((c) => [c.name, c.kind]));
    expect(kinds).toEqual({
      _id: 'uuid', // UUID (binary subtype 4, 16 bytes)
      active: 'boolean',
      address: 'other',
      age: 'float',
      avatar: 'binary',
      balance: 'float',
      createdAt: 'datetime',
      name: 'string',
      note: 'string',
      nothing: 'other',
      owner: 'objectId',
      price: 'decimal',
      tags: 'other',
    });
    expect(snapshot.tables.find((t) => t.name === 'empty')!.fields).toEqual([]);
    expect(snapshot.tables.find((t) => t.name === 'b.c')!.fields).toEqual(['_id', 'dotted']);
  });

  it('reads whole documents when every field is requested, with exact values', async () => {
    const snapshot = await shared.discoverSchema(signal());
    const all = snapshot.tables.find((t) => t.name === 'people')!.fields;
    const rows = await query(shared, { tables: { people: all } });
    const ana = rows.find(({ row }) => row._id === PERSON_1)!;
    expect(ana.table).toBe('people');
    expect(encodeCanonicalRow(ana.row)).toBe(
      '{"_id":"550e8400-e29b-41d4-a716-446655440000","active":true,' +
        '"address":{"city":"Lisboa","geo":{"lat":38.72,"lng":-9.14}},"age":34,"avatar":"AAEC+vs=",' +
        `"balance":${BIG},"createdAt":"2024-01-15T10:20:30.12Z","name":"Ana Silva",` +
        '"note":"naïve café – 東京 😀","nothing":null,"owner":"65a1b2c3d4e5f60718293a4b","price":"2500.00",' +
        '"tags":["vip","early"]}',
    );
    expect(rows.map(({ row }) => row._id).sort()).toEqual([PERSON_3, PERSON_1, PERSON_2].sort());
    const carla = rows.find(({ row }) => row._id === PERSON_3)!.row;
    expect(carla).toEqual({ _id: PERSON_3, name: 'Carla', age: 29, createdAt: '2023-12-31T23:59:59.999Z', active: true });
  });

  it('projects the requested fields plus _id, and dotted fields as nested objects', async () => {
    const rows = await query(shared, { tables: { people: ['age', 'name'] } });
    for (const { row } of rows) expect(Object.keys(row).sort()).toEqual(['_id', 'age', 'name']);
    const nested = await query(shared, { tables: { people: ['address.city'] } });
    expect(nested.find(({ row }) => row._id === PERSON_1)!.row).toEqual({ _id: PERSON_1, address: { city: 'Lisboa' } });
    expect(nested.find(({ row }) => row._id === PERSON_3)!.row).toEqual({ _id: PERSON_3 });
  });

  it('streams several tables in ascending key order, each whole, across batches', async () => {
    const rows = await query(shared, { tables: { people: ['_id'], big: ['n'], 'b.c': ['dotted'], orders: ['total'] } });
    const tables = rows.map(({ table }) => table);
    expect([...new Set(tables)]).toEqual(['b.c', 'big', 'orders', 'people']);
    expect(tables.filter((t) => t === 'big')).toHaveLength(BIG_COUNT);
    expect(rows[0]).toEqual({ table: 'b.c', row: { _id: 1, dotted: 'yes' } });
    expect(rows.filter(({ table }) => table === 'orders').map(({ row }) => row)).toEqual([
      { _id: '000000000000000000000001', total: 1.5 },
      { _id: '000000000000000000000002', total: 2 },
    ]);
  });

  it('reads an empty collection as no rows', async () => {
    expect(await query(shared, { tables: { empty: ['_id'] } })).toEqual([]);
  });

  it('refuses a table that is not in the database', async () => {
    await expect(shared.queryStream({ configName: 'crm', tables: { nope: ['x'] } }, signal())).rejects.toMatchObject({
      category: 'validation',
    });
  });

  describe('filters', () => {
    it('eq with one value, and with several ($in)', async () => {
      expect(await peopleIds({ name: { eq: ['Carla'] } })).toEqual([PERSON_3]);
      expect(await peopleIds({ name: { eq: ['Carla', 'Ana Silva'] } })).toEqual([PERSON_1, PERSON_3].sort());
    });

    it('gt, gte, lt, lte', async () => {
      expect(await peopleIds({ age: { gt: [34] } })).toEqual([PERSON_2]);
      expect(await peopleIds({ age: { gte: [34] } })).toEqual([PERSON_1, PERSON_2].sort());
      expect(await peopleIds({ age: { lt: [34] } })).toEqual([PERSON_3]);
      expect(await peopleIds({ age: { lte: [34] } })).toEqual([PERSON_1, PERSON_3].sort());
    });

    it('between, replacing gte/lte', async () => {
      expect(await peopleIds({ age: { between: [30, 40], gte: [0] } })).toEqual([PERSON_1]);
    });

    it('in, nin, ne with one and with several values', async () => {
      expect(await peopleIds({ name: { in: ['bruno.costa', 'nobody'] } })).toEqual([PERSON_2]);
      expect(await peopleIds({ name: { nin: ['bruno.costa'] } })).toEqual([PERSON_1, PERSON_3].sort());
      expect(await peopleIds({ name: { ne: ['Carla'] } })).toEqual([PERSON_1, PERSON_2].sort());
      expect(await peopleIds({ name: { ne: ['Carla', 'Ana Silva'] } })).toEqual([PERSON_2]);
    });

    it('like, case-insensitive, with regex metacharacters taken literally', async () => {
      expect(await peopleIds({ name: { like: ['ana%'] } })).toEqual([PERSON_1]);
      expect(await peopleIds({ name: { like: ['%SILVA'] } })).toEqual([PERSON_1]);
      expect(await peopleIds({ name: { like: ['bruno.%'] } })).toEqual([PERSON_2]);
      expect(await peopleIds({ name: { like: ['bruno_costa'] } })).toEqual([PERSON_2]);
      expect(await peopleIds({ name: { like: ['brunoXcosta'] } })).toEqual([]);
      expect(await peopleIds({ name: { like: ['c_rla'] } })).toEqual([PERSON_3]);
    });

    it('replaces a single eq combined with another operator by the operator document (kept quirk)', async () => {
      expect(await peopleIds({ age: { eq: [29], gt: [30] } })).toEqual([PERSON_1, PERSON_2].sort());
    });

    it('coerces ISO strings for dates, hex for ObjectIds, numeric strings for numbers and decimals', async () => {
      expect(await peopleIds({ createdAt: { between: ['2024-01-01', '2024-01-31T23:59:59Z'] } })).toEqual([PERSON_1]);
      expect(await peopleIds({ createdAt: { lt: ['2024-01-01T00:00:00+00:00'] } })).toEqual([PERSON_3]);
      expect(await peopleIds({ owner: { eq: ['65A1B2C3D4E5F60718293A4B'] } })).toEqual([PERSON_1]);
      expect(await peopleIds({ age: { eq: ['41'] } })).toEqual([PERSON_2]);
      expect(await peopleIds({ balance: { eq: [BIG] } })).toEqual([PERSON_1]);
      expect(await peopleIds({ price: { gt: ['100'] } })).toEqual([PERSON_1]);
      expect(await peopleIds({ active: { eq: ['false'] } })).toEqual([PERSON_2]);
    });

    it('matches a UUID _id given as text', async () => {
      expect(await peopleIds({ _id: { eq: [PERSON_2.toUpperCase()] } })).toEqual([PERSON_2]);
    });

    it('eq null matches null and missing fields; ne null the others', async () => {
      expect(await peopleIds({ nothing: { eq: [null] } })).toEqual([PERSON_1, PERSON_2, PERSON_3].sort());
      expect(await peopleIds({ owner: { ne: [null] } })).toEqual([PERSON_1, PERSON_2].sort());
    });

    it('refuses a value that does not fit the inferred kind', async () => {
      await expect(
        shared.queryStream({ configName: 'crm', tables: { people: ['_id'] }, filters: { people: { owner: { eq: ['xyz'] } } } }, signal()),
      ).rejects.toMatchObject({ category: 'validation', message: 'filter value does not match the column type: crm.people.owner' });
    });
  });

  it('stops mid-stream when the signal aborts and the connector stays usable', async () => {
    const sut = connector();
    const controller = new AbortController();
    const cursor = await sut.queryStream({ configName: 'crm', tables: { big: ['n'] } }, controller.signal);
    for (let i = 0; i < 300; i++) expect(await cursor.next()).not.toBeNull();
    controller.abort();
    await expect(cursor.next()).rejects.toMatchObject({ category: 'canceled' });
    await cursor.close();
    await cursor.close();
    expect(await query(sut, { tables: { orders: ['total'] } })).toHaveLength(2);
  });

  it('closing a cursor early releases it and the connector stays usable', async () => {
    const sut = connector();
    const cursor = await sut.queryStream({ configName: 'crm', tables: { big: ['n'] } }, signal());
    expect(await cursor.next()).toEqual({ table: 'big', row: { _id: 0, n: 0 } });
    await cursor.close();
    expect(await cursor.next()).toBeNull();
    expect(await query(sut, { tables: { big: ['n'] } })).toHaveLength(BIG_COUNT);
  });

  it('queries a fresh connector without an explicit discovery (the worker path)', async () => {
    const sut = connector();
    await sut.testConnection(signal());
    const rows = await query(sut, { tables: { people: ['name'] }, filters: { people: { createdAt: { gte: ['2024-01-01'] } } } });
    expect(rows.map(({ row }) => row.name).sort()).toEqual(['Ana Silva', 'bruno.costa']);
  });

  it('answered every command the connector sent (in-memory server only)', () => {
    expect(server ? server.unknownCommands() : []).toEqual([]);
  });
});
