import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { mongo } from 'mongoose';
import { aPostgresConnection, ManagerHarness } from '../testing/manager-harness';
import { createMariaDatabase, createPostgresSchema } from '../testing/sql-fixtures';

const BASE = '/v1/management/connections';
const INTERNAL_ID = 'e4c25a21-6ae0-5fe9-ac58-0ec4893d7d0a';
const CONNECT_ERROR = {
  code: 500,
  title: 'Database Connection Error',
  message: 'The adapter failed to connect to the target data source. Check credentials and network access.',
};
const FORBIDDEN = { code: 'FET-0414', title: 'Forbidden Host', message: 'Host is not a valid external database endpoint' };
const INTERNAL_ENV = {
  DATASOURCE_LEDGER_CONFIG_NAME: 'ledger',
  DATASOURCE_LEDGER_TYPE: 'POSTGRESQL',
  DATASOURCE_LEDGER_HOST: '127.0.0.1',
  DATASOURCE_LEDGER_PORT: '5432',
  DATASOURCE_LEDGER_DATABASE: 'test',
  DATASOURCE_LEDGER_USER: 'postgres',
};

describe('test, schema and validate-schema against real datasources', () => {
  let mongoServer: MongoTestTarget;
  let sut: ManagerHarness;
  let pg: Awaited<ReturnType<typeof createPostgresSchema>>;
  let maria: Awaited<ReturnType<typeof createMariaDatabase>>;
  let pgConn: Record<string, unknown>;
  let mariaConn: Record<string, unknown>;
  let downConn: Record<string, string>;

  beforeAll(async () => {
    mongoServer = await withMongo();
    [pg, maria] = await Promise.all([createPostgresSchema(), createMariaDatabase()]);
    sut = await ManagerHarness.start(mongoServer.uri, { ...INTERNAL_ENV, REDIS_HOST: '127.0.0.1' });
    pgConn = await sut.create(aPostgresConnection({ schema: pg.schema }));
    mariaConn = await sut.create({ configName: `maria-${randomUUID().slice(0, 8)}`, type: 'MYSQL', host: 'localhost', port: 3306, databaseName: maria.database, userName: maria.user, password: maria.password });
    // Nothing listens on port 1: the dial fails at the connect stage.
    downConn = (await sut.create(aPostgresConnection({ port: 1 }))) as Record<string, string>;
  });
  afterAll(async () => {
    await sut?.close();
    await mongoServer?.close();
    await Promise.all([pg?.drop(), maria?.drop()]);
  });

  /** Inserts a stored connection the API would refuse, as another writer could have left it. */
  async function seedRaw(fields: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    await sut.collection('connection').insertOne({
      _id: new mongo.Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 0),
      product_name: 'reporter',
      config_name: `raw-${id.slice(0, 8)}`,
      type: 'POSTGRESQL',
      host: '127.0.0.1',
      port: 5432,
      database_name: 'test',
      username: 'postgres',
      password_encrypted: sut.config.keyRing.encryptCredential('pw').ciphertext,
      encryption_key_version: '1',
      created_at: new Date(),
      updated_at: new Date(),
      deleted_at: null,
      ...fields,
    } as never);
    return id;
  }

  describe('POST {id}/test', () => {
    it.each([['PostgreSQL', () => pgConn], ['MariaDB', () => mariaConn]])('dials %s and reports a whole, positive latency', async (_name, conn) => {
      const res = await sut.request('POST', `${BASE}/${conn().id as string}/test`);
      expect(res.status).toBe(200);
      const body = res.json<{ latencyMs: number }>();
      expect(body).toEqual({ status: 'success', message: 'Connection successful', latencyMs: expect.any(Number) });
      expect(Number.isInteger(body.latencyMs) && body.latencyMs >= 1).toBe(true);
    });

    it('dials an internal datasource', async () => {
      expect((await sut.request('POST', `${BASE}/${INTERNAL_ID}/test`)).json()).toMatchObject({ status: 'success' });
    });

    it('answers a refused dial with 500 in the numeric dialect (E3)', async () => {
      const res = await sut.request('POST', `${BASE}/${downConn.id}/test`);
      expect(res.status).toBe(500);
      expect(res.json()).toEqual({ ...CONNECT_ERROR, reason: 'refused' });
    });

    it('answers undecryptable credentials like a failed dial', async () => {
      const id = await seedRaw({ encryption_key_version: '9' });
      expect((await sut.request('POST', `${BASE}/${id}/test`)).json()).toEqual(CONNECT_ERROR);
    });

    it('answers an SSL mode the type does not allow with 400/FET-0413 naming the mode', async () => {
      const id = await seedRaw({ ssl: { mode: 'bogus' } });
      const res = await sut.request('POST', `${BASE}/${id}/test`);
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({
        code: 'FET-0413',
        title: 'Invalid SSL Mode',
        message: "Invalid SSL mode. The provided SSL mode 'bogus' is not supported. Please use a valid SSL mode for this database type.",
      });
    });

    it('answers 400/FET-0404 for a bad id and 404/FET-1001 for an unknown one', async () => {
      expect((await sut.request('POST', `${BASE}/x/test`)).json()).toMatchObject({ code: 'FET-0404' });
      expect((await sut.request('POST', `${BASE}/${randomUUID()}/test`)).json()).toMatchObject({ code: 'FET-1001' });
    });
  });

  describe('GET {id}/schema', () => {
    it('discovers live, qualified outside the default schema, tables and fields sorted, with the column types', async () => {
      const res = await sut.request('GET', `${BASE}/${pgConn.id as string}/schema`);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        id: pgConn.id,
        configName: pgConn.configName,
        databaseName: 'test',
        type: 'POSTGRESQL',
        tables: [
          {
            name: `${pg.schema}.accounts`,
            fields: ['created_at', 'email', 'id'],
            columns: [
              { name: 'created_at', kind: 'datetime', type: 'timestamptz' },
              { name: 'email', kind: 'string', type: 'text' },
              { name: 'id', kind: 'integer', type: 'int4' },
            ],
          },
          {
            name: `${pg.schema}.orders`,
            fields: ['id', 'total'],
            columns: [
              { name: 'id', kind: 'integer', type: 'int4' },
              { name: 'total', kind: 'decimal', type: 'numeric' },
            ],
          },
        ],
      });
    });

    it('discovers MariaDB tables bare and an internal datasource', async () => {
      expect((await sut.request('GET', `${BASE}/${mariaConn.id as string}/schema`)).json()).toMatchObject({ tables: [{ name: 'customers', fields: ['id', 'name'] }] });
      expect((await sut.request('GET', `${BASE}/${INTERNAL_ID}/schema`)).json()).toMatchObject({ configName: 'ledger', tables: expect.any(Array) });
    });

    it('answers failures in the numeric dialect, and a bad SSL mode with FET-0413', async () => {
      expect((await sut.request('GET', `${BASE}/${downConn.id}/schema`)).json()).toEqual({ ...CONNECT_ERROR, reason: 'refused' });
      const id = await seedRaw({ ssl: { mode: 'bogus' } });
      expect((await sut.request('GET', `${BASE}/${id}/schema`)).json()).toMatchObject({ code: 'FET-0413' });
      expect((await sut.request('GET', `${BASE}/${randomUUID()}/schema`)).json()).toMatchObject({ code: 'FET-1001' });
    });
  });

  describe('POST validate-schema', () => {
    const validate = (body: unknown) => sut.request('POST', `${BASE}/validate-schema`, { body });

    it('answers 200 when every datasource, table and field exists ("*", db.schema.table keys, case-insensitive default prefix)', async () => {
      const res = await validate({
        mappedFields: {
          [mariaConn.configName as string]: { customers: ['id', 'name', '*'] },
          // Three parts: the first (a database) is dropped.
          [pgConn.configName as string]: { [`${pg.schema}.accounts`]: ['email'], [`somedb.${pg.schema}.orders`]: [] },
          ledger: { 'PUBLIC.pg_nothing_here': [] },
        },
      });
      // The internal datasource's table does not exist, so this one is a 422; the rest are fine.
      expect(res.status).toBe(422);
      expect(res.json()).toEqual({
        title: 'Schema validation failed',
        code: 'FET-1060',
        message: 'Schema validation found inconsistencies.',
        errors: [{ type: 'TABLE_NOT_FOUND', dataSourceId: 'ledger', table: 'PUBLIC.pg_nothing_here' }],
      });
      const ok = await validate({ mappedFields: { [pgConn.configName as string]: { [`${pg.schema}.accounts`]: ['*', 'id'] } } });
      expect(ok.status).toBe(200);
      expect(ok.json()).toEqual({ status: 'success', message: 'Schema validated successfully. All datasources, tables, and fields exist.' });
    });

    it('reports every problem, sorted by datasource, table and field', async () => {
      const res = await validate({
        mappedFields: {
          zz_missing: { t: ['a'] },
          [downConn.configName]: { t: ['a'] },
          [pgConn.configName as string]: { [`${pg.schema}.accounts`]: ['zeta', 'alpha'], [`${pg.schema}.nope`]: ['x'] },
        },
      });
      expect(res.status).toBe(422);
      const pgName = pgConn.configName as string;
      expect(res.json<{ errors: unknown[] }>().errors).toEqual(
        [
          { type: 'DATA_SOURCE_DOWN', dataSourceId: downConn.configName },
          { type: 'FIELD_NOT_FOUND', dataSourceId: pgName, table: `${pg.schema}.accounts`, field: 'alpha' },
          { type: 'FIELD_NOT_FOUND', dataSourceId: pgName, table: `${pg.schema}.accounts`, field: 'zeta' },
          { type: 'TABLE_NOT_FOUND', dataSourceId: pgName, table: `${pg.schema}.nope` },
          { type: 'DATA_SOURCE_NOT_FOUND', dataSourceId: 'zz_missing' },
        ].sort((a, b) => String(a.dataSourceId).localeCompare(String(b.dataSourceId), 'en')),
      );
    });

    it('answers 400/FET-1062 when no datasource resolves (quirk: 400, not 422)', async () => {
      const res = await validate({ mappedFields: { nothing_here: { t: [] } } });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ code: 'FET-1062', title: 'No Connections Found', message: 'No connections configured for the requested datasources' });
    });

    const tooMany = (n: number, make: (i: number) => [string, unknown]) => Object.fromEntries(Array.from({ length: n }, (_, i) => make(i)));
    it.each([
      [{}, 400, { code: 'FET-0402', title: 'Missing Fields in Request', message: 'Some required fields are missing. Please check the listed fields and try again.', fields: { mappedFields: 'mappedFields is a required field' } }],
      [{ mappedFields: 'x' }, 400, { code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body', reason: 'wrong_type', field: 'mappedFields' }],
      [{ mappedFields: { a: { t: 'x' } } }, 400, { code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body', reason: 'wrong_type', field: 'mappedFields.a.t' }],
      [{ mappedFields: {} }, 400, { code: 'FET-0401', title: 'Invalid Data Request', message: 'mappedFields cannot be empty' }],
      [{ mappedFields: tooMany(11, (i) => [`ds${i}`, {}]) }, 400, { code: 'FET-1061', title: 'Validation Limit Exceeded', message: 'maximum 10 datasources allowed per validation request' }],
      [{ mappedFields: { ' ': {} } }, 400, { code: 'FET-0401', title: 'Invalid Data Request', message: 'config name cannot be empty or whitespace-only' }],
      [{ mappedFields: { ds: tooMany(21, (i) => [`t${i}`, []]) } }, 400, { code: 'FET-1061', title: 'Validation Limit Exceeded', message: "maximum 20 tables allowed per datasource, got 21 for 'ds'" }],
      [{ mappedFields: { ds: { ' ': [] } } }, 400, { code: 'FET-0401', title: 'Invalid Data Request', message: "table name cannot be empty or whitespace-only in datasource 'ds'" }],
      [{ mappedFields: { ds: { t: Array.from({ length: 51 }, (_, i) => `f${i}`) } } }, 400, { code: 'FET-1061', title: 'Validation Limit Exceeded', message: "maximum 50 fields allowed per table, got 51 for 'ds.t'" }],
      [{ mappedFields: { ds: { t: ['ok', ' '] } } }, 400, { code: 'FET-0401', title: 'Invalid Data Request', message: "field name cannot be empty or whitespace-only in 'ds.t'" }],
    ])('checks the request first: %j', async (body, status, answer) => {
      const res = await validate(body);
      expect(res.status).toBe(status);
      expect(res.json()).toEqual(answer);
    });
  });

  describe('host safety at dial time (no allowlist)', () => {
    let strict: ManagerHarness;
    beforeAll(async () => {
      // Its own database: the records below are written without the literal check, as a less strict replica might have.
      strict = await ManagerHarness.start(mongoServer.uri, { ...INTERNAL_ENV, HOST_SAFETY_ALLOWLIST: '' });
    });
    afterAll(() => strict?.close());

    it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', 'localhost', 'db.localhost', '169.254.169.254', 'metadata.google.internal', '0.0.0.0', '224.0.0.1', '192.0.2.10'])(
      'refuses the literal %s at create with 400/FET-0414',
      async (host) => {
        const res = await strict.request('POST', BASE, { headers: { 'x-product-name': 'p' }, body: aPostgresConnection({ host }) });
        expect(res.status).toBe(400);
        expect(res.json()).toEqual(FORBIDDEN);
        expect(res.text).not.toContain(host);
      },
    );

    it('refuses a name that resolves to loopback when dialling (test, schema and validate-schema)', async () => {
      const name = hostname();
      expect((await lookup(name)).address).toMatch(/^127\.|^::1$/); // the machine's own name is a loopback name here
      const created = (await strict.request('POST', BASE, { headers: { 'x-product-name': 'p' }, body: aPostgresConnection({ host: name }) })).json();
      expect(created.host).toBe(name); // accepted at create: no DNS there
      const id = created.id as string;
      expect((await strict.request('POST', `${BASE}/${id}/test`)).json()).toEqual(FORBIDDEN);
      expect((await strict.request('GET', `${BASE}/${id}/schema`)).json()).toEqual(FORBIDDEN);
      const validate = await strict.request('POST', `${BASE}/validate-schema`, { body: { mappedFields: { [created.configName as string]: { t: [] }, ledger: { t: [] } } } });
      expect(validate.status).toBe(400);
      expect(validate.json()).toEqual(FORBIDDEN);
    });

    it('exempts operator-configured internal datasources', async () => {
      expect((await strict.request('POST', `${BASE}/${INTERNAL_ID}/test`)).json()).toMatchObject({ status: 'success' });
    });
  });
});
