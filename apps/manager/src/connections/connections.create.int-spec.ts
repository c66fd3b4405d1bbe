import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { aPostgresConnection, ManagerHarness } from '../testing/manager-harness';

const BASE = '/v1/management/connections';
const INTERNAL_ID = 'e4c25a21-6ae0-5fe9-ac58-0ec4893d7d0a'; // UUIDv5 of "/ledger" in the internal-datasource namespace

describe('create, list and get connections over HTTP', () => {
  let mongo: MongoTestTarget;
  let sut: ManagerHarness;
  const post = (body: unknown, headers: Record<string, string> = { 'x-product-name': 'reporter' }) => sut.request('POST', BASE, { headers, body });

  beforeAll(async () => {
    mongo = await withMongo();
    sut = await ManagerHarness.start(mongo.uri, {
      REDIS_HOST: '127.0.0.1',
      DATASOURCE_LEDGER_CONFIG_NAME: 'ledger',
      DATASOURCE_LEDGER_TYPE: 'postgresql',
      DATASOURCE_LEDGER_HOST: '127.0.0.1',
      DATASOURCE_LEDGER_PORT: '5432',
      DATASOURCE_LEDGER_DATABASE: 'test',
      DATASOURCE_LEDGER_USER: 'postgres',
      DATASOURCE_LEDGER_PASSWORD: 'internal-secret',
    });
  });
  afterAll(async () => {
    await sut?.close();
    await mongo?.close();
  });

  describe('POST (create)', () => {
    it('answers 201 with the connection, lower-cases the product and never returns secrets', async () => {
      const body = aPostgresConnection({ schema: 'public', ssl: { mode: 'require', ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' }, metadata: { team: 'a' }, extra: 1 });
      const res = await post(body, { 'x-product-name': '  Reporter ' });
      expect(res.status).toBe(201);
      const created = res.json();
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/),
        productName: 'reporter',
        configName: body.configName,
        type: 'POSTGRESQL',
        host: '127.0.0.1',
        port: 5432,
        databaseName: 'test',
        schema: 'public',
        userName: 'postgres',
        ssl: { mode: 'require' },
        metadata: { team: 'a' },
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: created.createdAt,
      });
      for (const secret of ['not-needed-with-trust', 'CA-PEM', 'CERT-PEM', 'KEY-PEM']) expect(res.text).not.toContain(secret);
    });

    it('stores snake_case fields with the secrets encrypted under the key version', async () => {
      const body = aPostgresConnection({ ssl: { mode: 'disable', ca: 'CA-PEM' } });
      await post(body);
      const doc = await sut.collection('connection').findOne({ config_name: body.configName });
      expect(doc).toMatchObject({ product_name: 'reporter', database_name: 'test', username: 'postgres', encryption_key_version: '1', deleted_at: null });
      expect(doc?._id).toMatchObject({ sub_type: 0 });
      expect(doc?.password_encrypted).toEqual(expect.any(String));
      expect(JSON.stringify(doc)).not.toContain('not-needed-with-trust');
      expect(doc?.ssl).toEqual({ mode: 'disable', ca_encrypted: expect.any(String) });
    });

    it.each([
      ['no header', {}, 'X-Product-Name header is required and must not be empty'],
      ['a blank header', { 'x-product-name': '   ' }, 'X-Product-Name header is required and must not be empty'],
      ['a long header', { 'x-product-name': 'a'.repeat(101) }, 'X-Product-Name must not exceed 100 characters'],
      ['a bad header', { 'x-product-name': 'my product' }, 'X-Product-Name can only contain alphanumeric characters, underscores, and hyphens'],
    ])('checks the product header first: %s is 400/FET-0403', async (_name, headers, message) => {
      const res = await sut.request('POST', BASE, { headers, body: 'not even json' });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ code: 'FET-0403', title: 'Invalid header', message });
    });

    it.each([
      ['malformed JSON', '{"configName":', 'application/json', { reason: 'malformed_json' }],
      ['a zero-length body', '', 'application/json', { reason: 'malformed_json' }],
      ['no content type', '{}', undefined, { reason: 'content_type' }],
      ['another content type', '{}', 'text/plain', { reason: 'content_type' }],
      ['an array', '[]', 'application/json', { reason: 'not_an_object' }],
      ['a JSON string', '"x"', 'application/json', { reason: 'not_an_object' }],
      ['null', 'null', 'application/json', { reason: 'not_an_object' }],
      ['a string port', JSON.stringify(aPostgresConnection({ port: '5432' })), 'application/json', { reason: 'wrong_type', field: 'port' }],
      ['a fractional port', JSON.stringify(aPostgresConnection({ port: 5432.5 })), 'application/json', { reason: 'wrong_type', field: 'port' }],
      ['metadata as an array', JSON.stringify(aPostgresConnection({ metadata: [] })), 'application/json', { reason: 'wrong_type', field: 'metadata' }],
      ['ssl as a string', JSON.stringify(aPostgresConnection({ ssl: 'on' })), 'application/json', { reason: 'wrong_type', field: 'ssl' }],
      ['a number as ssl.mode', JSON.stringify(aPostgresConnection({ ssl: { mode: 1, ca: 'x' } })), 'application/json', { reason: 'wrong_type', field: 'ssl.mode' }],
    ])('refuses %s with 400/FET-0001 "unable to parse request body" and says which (%j)', async (_name, payload, type, which) => {
      const res = await sut.request('POST', BASE, { headers: { 'x-product-name': 'p', ...(type ? { 'content-type': type } : {}) }, body: payload });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body', ...which });
    });

    it('accepts a charset parameter on the content type', async () => {
      const res = await sut.request('POST', BASE, {
        headers: { 'x-product-name': 'p', 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(aPostgresConnection()),
      });
      expect(res.status).toBe(201);
    });

    it.each([[{}], [{ unknown: 1, other: 'x' }], [{ configName: '', port: 0, ssl: {}, metadata: {} }]])('answers an empty body %j with "Invalid payload"', async (body) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ code: 'FET-0001', title: 'Invalid payload', message: 'empty request body' });
    });

    it('lists only the required problems when any is missing (FET-0402, JSON names, no entityType)', async () => {
      const res = await post({ configName: 'x', type: 'postgres', port: 0 });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({
        title: 'Missing Fields in Request',
        code: 'FET-0402',
        message: 'Some required fields are missing. Please check the listed fields and try again.',
        fields: {
          host: 'host is a required field',
          port: 'port is a required field',
          databaseName: 'databaseName is a required field',
          userName: 'userName is a required field',
          password: 'password is a required field',
        },
      });
    });

    it('reports other shape problems as FET-0001 with every problem', async () => {
      const res = await post(aPostgresConnection({ type: 'postgresql', host: '1nvalid_host', port: 65_536 }));
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({
        title: 'Bad Request',
        code: 'FET-0001',
        message: 'Some fields have invalid values. Please check the listed fields and try again.',
        fields: {
          type: 'type must be one of [ORACLE SQL_SERVER POSTGRESQL MONGODB MYSQL]',
          host: 'host must be a valid hostname or IP address',
          port: 'port must be 65535 or less',
        },
      });
      expect((await post(aPostgresConnection({ port: -1 }))).json()).toMatchObject({ code: 'FET-0001', fields: { port: 'port must be 1 or greater' } });
    });

    it('reports a bad config-name pattern as FET-0402 (quirk) and a bad length as FET-0001, on snake_case keys', async () => {
      expect((await post(aPostgresConnection({ configName: 'bad name!' }))).json()).toEqual({
        entityType: 'connection',
        title: 'Missing Fields in Request',
        code: 'FET-0402',
        message: 'Some required fields are missing. Please check the listed fields and try again.',
        fields: { config_name: 'config_name can only contain letters, digits, underscores and hyphens' },
      });
      expect((await post(aPostgresConnection({ configName: 'ab' }))).json()).toEqual({
        entityType: 'connection',
        title: 'Bad Request',
        code: 'FET-0001',
        message: 'Some fields have invalid values. Please check the listed fields and try again.',
        fields: { config_name: 'config_name must be between 3 and 100 characters' },
      });
    });

    it('requires ssl.mode and ssl.ca whenever an SSL block is sent, even for mode "disable" (quirk)', async () => {
      expect((await post(aPostgresConnection({ ssl: { mode: 'disable' } }))).json()).toMatchObject({
        code: 'FET-0402',
        entityType: 'connection',
        fields: { 'ssl.ca': 'ssl.ca is required' },
      });
      expect((await post(aPostgresConnection({ ssl: { ca: 'x' } }))).json()).toMatchObject({ code: 'FET-0402', fields: { 'ssl.mode': 'ssl.mode is required' } });
      expect((await post(aPostgresConnection({ ssl: { mode: 'true', ca: 'x' } }))).json()).toMatchObject({
        code: 'FET-0001',
        fields: { 'ssl.mode': "ssl.mode 'true' is not supported for POSTGRESQL" },
      });
    });

    it('refuses a forbidden literal host with 400/FET-0414 without echoing it', async () => {
      const res = await post(aPostgresConnection({ host: '169.254.169.254' }));
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ code: 'FET-0414', title: 'Forbidden Host', message: 'Host is not a valid external database endpoint' });
    });

    it('accepts an unresolvable public name (no DNS at create time)', async () => {
      expect((await post(aPostgresConnection({ host: `nowhere-${randomUUID().slice(0, 8)}.example.com` }))).status).toBe(201);
    });

    it('answers 409/FET-1002 for a name in use and for an internal datasource name', async () => {
      const body = aPostgresConnection();
      await post(body);
      const conflict = {
        code: 'FET-1002',
        title: 'Conflict',
        message:
          'An entity of type connection with the same unique attributes already exists. Please use different values to avoid conflicts and review the data provided in the request.',
      };
      const dup = await post({ ...body, configName: ` ${String(body.configName)} ` });
      expect(dup.status).toBe(409);
      expect(dup.json()).toEqual(conflict);
      const internal = await post(aPostgresConnection({ configName: 'ledger' }));
      expect(internal.status).toBe(409);
      expect(internal.json()).toEqual(conflict);
    });

    it('lets only one of two racing creates of a name win (the unique index is the backstop)', async () => {
      const body = aPostgresConnection();
      const answers = await Promise.all([post(body), post(body), post(body)]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    });
  });

  describe('GET one', () => {
    it('reads a connection by any lenient form of its id', async () => {
      const created = await sut.create(aPostgresConnection());
      const id = created.id as string;
      const hex = id.replace(/-/g, '');
      for (const form of [id, id.toUpperCase(), `{${id}}`, `urn:uuid:${id}`, hex, hex.toUpperCase()]) {
        const res = await sut.request('GET', `${BASE}/${encodeURIComponent(form)}`);
        expect(res.status).toBe(200);
        expect(res.json()).toEqual(created);
      }
    });

    it('answers 400/FET-0404 for a malformed id and 404/FET-1001 for an unknown one', async () => {
      const bad = await sut.request('GET', `${BASE}/not-a-uuid`);
      expect(bad.status).toBe(400);
      expect(bad.json()).toEqual({ code: 'FET-0404', title: 'Invalid Path Parameter', message: 'invalid connection id' });
      const missing = await sut.request('GET', `${BASE}/${randomUUID()}`);
      expect(missing.status).toBe(404);
      expect(missing.json()).toEqual({
        code: 'FET-1001',
        title: 'Entity Not Found',
        message: 'It was not possible to find the connection entity during the requested flow. Please review the data provided in the request.',
      });
    });

    it('reads an internal datasource by its UUIDv5, with zero timestamps, no product and no password', async () => {
      const res = await sut.request('GET', `${BASE}/${INTERNAL_ID}`);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        id: INTERNAL_ID,
        configName: 'ledger',
        type: 'POSTGRESQL',
        host: '127.0.0.1',
        port: 5432,
        databaseName: 'test',
        userName: 'postgres',
        createdAt: '0001-01-01T00:00:00Z',
        updatedAt: '0001-01-01T00:00:00Z',
      });
      expect(res.text).not.toContain('internal-secret');
    });
  });

  describe('GET list', () => {
    const product = `list-${randomUUID().slice(0, 8)}`;
    const names: string[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 3; i++) {
        const created = await sut.create(aPostgresConnection({ configName: `${product}-${i}`, metadata: { tier: i === 0 ? 'gold' : 'std', n: i } }), product);
        names.push(created.configName as string);
      }
    });
    const list = (query: Record<string, string> = {}, headers: Record<string, string> = { 'x-product-name': product }) =>
      sut.request('GET', BASE, { query, headers });

    it('lists the internal datasources first on page 1 only, counting them in total (quirk)', async () => {
      const page1 = (await list({ limit: '2' })).json<{ items: { configName: string }[]; total: number; page: number; limit: number }>();
      expect(page1.items.map((i) => i.configName)).toEqual(['ledger', names[2], names[1]]);
      expect(page1).toMatchObject({ page: 1, limit: 2, total: 4 });
      const page2 = (await list({ limit: '2', page: '2' })).json<{ items: { configName: string }[]; total: number }>();
      expect(page2.items.map((i) => i.configName)).toEqual([names[0]]);
      expect(page2.total).toBe(3);
    });

    it('sorts ascending, filters on metadata strings, type, host and database, and by product header', async () => {
      const asc = (await list({ sortOrder: 'ASC' })).json<{ items: { configName: string }[] }>();
      expect(asc.items.map((i) => i.configName)).toEqual(['ledger', ...names]);
      const gold = (await list({ 'metadata.tier': 'gold' })).json<{ items: { configName: string }[] }>();
      expect(gold.items.map((i) => i.configName)).toEqual(['ledger', names[0]]);
      // Metadata matches strings only: the number 1 is not "1".
      expect((await list({ 'metadata.n': '1' })).json<{ items: unknown[] }>().items).toHaveLength(1);
      expect((await list({ type: 'mysql' })).json<{ items: unknown[]; total: number }>()).toEqual({ items: [], page: 1, limit: 10, total: 0 });
      expect((await list({ host: 'elsewhere' })).json<{ total: number }>().total).toBe(0);
      expect((await list({ databaseName: 'test', type: 'postgresql' })).json<{ total: number }>().total).toBe(4);
    });

    it('applies dates in UTC, with endDate covering its whole day', async () => {
      const today = new Date().toISOString().slice(0, 10);
      expect((await list({ startDate: today, endDate: today })).json<{ total: number }>().total).toBe(4);
      expect((await list({ endDate: '2000-01-01' })).json<{ total: number }>().total).toBe(1);
      expect((await list({ startDate: '2999-01-01' })).json<{ total: number }>().total).toBe(1);
    });

    it('ignores empty parameters and unknown keys', async () => {
      expect((await list({ page: '', limit: '', sortOrder: '', whatever: 'x' })).status).toBe(200);
    });

    const queryError = (p: string) => ({
      code: 'FET-0405',
      title: 'Invalid Query Parameter',
      message: `One or more query parameters are in an incorrect format. Please check the following parameters '${p}' and ensure they meet the required format before trying again.`,
    });
    it.each([
      [{ page: 'x' }, queryError('page')],
      [{ page: '1.5' }, queryError('page')],
      [{ page: '0' }, queryError('page must be greater than 0')],
      [{ limit: 'ten' }, queryError('limit')],
      [{ limit: '-1' }, queryError('limit must be greater than 0')],
      [{ 'metadata.$where': 'x' }, queryError('metadata.$where')],
      [{ cursor: 'bm90IGpzb24=' }, queryError('cursor')],
      [{ $where: '1' }, queryError('$where')],
      [{ _id: '1' }, queryError('_id')],
      [{ ['k'.repeat(70)]: '1' }, queryError('k'.repeat(64))],
      [{ other: 'v'.repeat(257) }, queryError('other')],
      [{ limit: '101' }, { code: 'FET-0406', title: 'Pagination Limit Exceeded', message: 'The pagination limit exceeds the maximum allowed of 100 items per page. Please verify the limit and try again.' }],
      [{ sortOrder: 'up' }, { code: 'FET-0407', title: 'Invalid Sort Order', message: "The 'sort_order' field must be 'asc' or 'desc'. Please provide a valid sort order and try again." }],
      [{ startDate: '2026-02-30' }, { code: 'FET-0408', title: 'Invalid Date Format Error', message: "The 'initialDate', 'finalDate', or both are in the incorrect format. Please use the 'yyyy-mm-dd' format and try again." }],
      [{ endDate: '01/02/2026' }, { code: 'FET-0408', title: 'Invalid Date Format Error', message: "The 'initialDate', 'finalDate', or both are in the incorrect format. Please use the 'yyyy-mm-dd' format and try again." }],
      [{ startDate: '2026-02-02', endDate: '2026-02-01' }, { code: 'FET-0409', title: 'Invalid Final Date Error', message: "The 'finalDate' cannot be earlier than the 'initialDate'. Please verify the dates and try again." }],
    ])('refuses %j with a 400 naming the parameter', async (query, body) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.json()).toEqual(body);
    });

    it('accepts a well-formed cursor and otherwise ignores it', async () => {
      const cursor = Buffer.from(JSON.stringify({ id: 'x', points_next: true })).toString('base64');
      expect((await list({ cursor })).status).toBe(200);
    });

    it('refuses a blank product header on the list', async () => {
      const res = await list({}, { 'x-product-name': ' ' });
      expect(res.json()).toEqual({ code: 'FET-0403', title: 'Invalid header', message: 'X-Product-Name header must not be empty or whitespace-only' });
    });
  });

  it('matches static paths before {id} and answers unknown routes with E4', async () => {
    expect((await sut.request('GET', `${BASE}/unassigned`)).status).toBe(200);
    const unknown = await sut.request('PUT', `${BASE}/x`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual({ code: 404, title: 'request_failed', message: `Cannot PUT ${BASE}/x` });
  });
});
