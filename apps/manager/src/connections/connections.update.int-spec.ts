import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { type MongoTestTarget, withMongo } from '@fetcher/mongo-test-server';
import { mongo } from 'mongoose';
import { aPostgresConnection, ManagerHarness } from '../testing/manager-harness';

const BASE = '/v1/management/connections';
const INTERNAL_ID = 'e4c25a21-6ae0-5fe9-ac58-0ec4893d7d0a';

describe('patch, delete, assign and unassigned over HTTP', () => {
  let mongoServer: MongoTestTarget;
  let sut: ManagerHarness;
  const patch = (id: string, body: unknown) => sut.request('PATCH', `${BASE}/${id}`, { body });

  beforeAll(async () => {
    mongoServer = await withMongo();
    sut = await ManagerHarness.start(mongoServer.uri, {
      DATASOURCE_LEDGER_CONFIG_NAME: 'ledger',
      DATASOURCE_LEDGER_TYPE: 'POSTGRESQL',
      DATASOURCE_LEDGER_HOST: '127.0.0.1',
      DATASOURCE_LEDGER_PORT: '5432',
      DATASOURCE_LEDGER_DATABASE: 'test',
    });
  });
  afterAll(async () => {
    await sut?.close();
    await mongoServer?.close();
  });

  /** A pending or processing job mapping fields of the config name makes the connection busy. */
  async function seedJob(configName: string, status: string): Promise<void> {
    await sut.collection('job').insertOne({
      _id: new mongo.Binary(Buffer.from(randomUUID().replace(/-/g, ''), 'hex'), 0),
      status,
      dedup_active: status === 'pending' || status === 'processing',
      mapped_fields: { [configName]: { t: ['a'] } },
      metadata: { source: 'reporter' },
      request_hash: randomUUID(),
      created_at: new Date(),
    } as never);
  }

  /** A record from before products existed: no product_name at all. */
  async function seedUnassigned(): Promise<string> {
    const id = randomUUID();
    await sut.collection('connection').insertOne({
      _id: new mongo.Binary(Buffer.from(id.replace(/-/g, ''), 'hex'), 4),
      config_name: `legacy-${id.slice(0, 8)}`,
      type: 'POSTGRESQL',
      host: 'db.example.com',
      port: 5432,
      database_name: 'app',
      username: 'u',
      password_encrypted: sut.config.keyRing.encryptCredential('pw').ciphertext,
      encryption_key_version: '1',
      created_at: new Date(),
      updated_at: new Date(),
      deleted_at: null,
    } as never);
    return id;
  }

  describe('PATCH', () => {
    it('changes the given fields, bumps updatedAt, echoes metadata {} once (quirk) and GET omits it', async () => {
      const created = await sut.create(aPostgresConnection({ metadata: { a: '1' }, schema: 'public' }));
      const res = await patch(created.id as string, { host: ' db2.example.com ', port: 6543, schema: '', metadata: {}, productName: 'other', unknown: true });
      expect(res.status).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ host: 'db2.example.com', port: 6543, schema: '', metadata: {}, productName: 'reporter', createdAt: created.createdAt });
      expect(Date.parse(body.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt as string));
      const read = (await sut.request('GET', `${BASE}/${created.id as string}`)).json();
      expect(read).not.toHaveProperty('metadata');
      expect(read.schema).toBe('');
    });

    it('replaces metadata instead of merging (quirk)', async () => {
      const created = await sut.create(aPostgresConnection({ metadata: { a: '1', b: '2' } }));
      expect((await patch(created.id as string, { metadata: { c: '3' } })).json().metadata).toEqual({ c: '3' });
    });

    it.each([[{}], [{ ssl: {} }], [{ unknown: 1 }], [{ ssl: { ca: 'only-ca' } }]])('answers an empty patch %j with "empty request body"', async (body) => {
      const created = await sut.create(aPostgresConnection());
      const res = await patch(created.id as string, body);
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ code: 'FET-0001', title: 'Invalid payload', message: 'empty request body' });
    });

    it('applies SSL only with a mode, and then requires the CA again (quirk)', async () => {
      const created = await sut.create(aPostgresConnection({ ssl: { mode: 'require', ca: 'CA' } }));
      const noCa = await patch(created.id as string, { ssl: { mode: 'verify-full' } });
      expect(noCa.json()).toMatchObject({ code: 'FET-0402', entityType: 'connection', fields: { 'ssl.ca': 'ssl.ca is required' } });
      const ok = await patch(created.id as string, { ssl: { mode: 'verify-full', ca: 'CA2' } });
      expect(ok.json().ssl).toEqual({ mode: 'verify-full' });
      // Changing the type re-checks the current SSL mode.
      expect((await patch(created.id as string, { type: 'MYSQL' })).json()).toMatchObject({
        code: 'FET-0001',
        fields: { 'ssl.mode': "ssl.mode 'verify-full' is not supported for MYSQL" },
      });
    });

    it('runs the shape rules, then the domain rules on the patched record', async () => {
      const created = await sut.create(aPostgresConnection());
      const id = created.id as string;
      expect((await patch(id, { configName: 'ab' })).json()).toEqual({
        title: 'Bad Request',
        code: 'FET-0001',
        message: 'Some fields have invalid values. Please check the listed fields and try again.',
        fields: { configName: 'configName must be at least 3 characters in length' },
      });
      expect((await patch(id, { configName: 'x'.repeat(101) })).json()).toMatchObject({ fields: { configName: 'configName must be a maximum of 100 characters in length' } });
      expect((await patch(id, { port: 70_000 })).json()).toMatchObject({ fields: { port: 'port must be 65535 or less' } });
      expect((await patch(id, { host: '' })).json()).toMatchObject({ code: 'FET-0402', entityType: 'connection', fields: { host: 'host is required' } });
      expect((await patch(id, { port: 0 })).json()).toMatchObject({ code: 'FET-0402', fields: { port: 'port is required' } });
      expect((await patch(id, { databaseName: '', userName: '' })).json()).toMatchObject({
        code: 'FET-0402',
        fields: { database_name: 'database_name is required', username: 'username is required' },
      });
      expect((await patch(id, { configName: 'has space' })).json()).toMatchObject({ code: 'FET-0402', fields: { config_name: expect.any(String) } });
      expect((await patch(id, { host: '127.0.0.1', type: 'ORACLE' })).status).toBe(200);
      expect((await patch(id, { host: 'metadata.google.internal' })).json()).toMatchObject({ code: 'FET-0414' });
    });

    it('allows renaming, but not onto a live name or an internal datasource name (409/FET-1002)', async () => {
      const a = await sut.create(aPostgresConnection());
      const b = await sut.create(aPostgresConnection());
      expect((await patch(a.id as string, { configName: b.configName })).status).toBe(409);
      expect((await patch(a.id as string, { configName: 'ledger' })).json()).toMatchObject({ code: 'FET-1002' });
      const renamed = `renamed-${randomUUID().slice(0, 8)}`;
      expect((await patch(a.id as string, { configName: renamed })).json().configName).toBe(renamed);
      // The old name is free again.
      expect((await sut.request('POST', BASE, { headers: { 'x-product-name': 'p' }, body: aPostgresConnection({ configName: a.configName }) })).status).toBe(201);
    });

    it('re-encrypts a new password with the current key', async () => {
      const created = await sut.create(aPostgresConnection());
      const before = await sut.collection('connection').findOne({ config_name: created.configName });
      await patch(created.id as string, { password: 'new-secret' });
      const after = await sut.collection('connection').findOne({ config_name: created.configName });
      expect(after?.password_encrypted).not.toBe(before?.password_encrypted);
      expect(sut.config.keyRing.decryptCredential(after?.password_encrypted as string, after?.encryption_key_version as string)).toBe('new-secret');
    });

    it('answers 404 for an unknown id, an internal datasource and a deleted record; 400 for a bad id', async () => {
      expect((await patch(randomUUID(), { port: 1 })).json()).toMatchObject({ code: 'FET-1001' });
      expect((await patch(INTERNAL_ID, { port: 1 })).status).toBe(404);
      expect((await patch('nope', { port: 1 })).json()).toMatchObject({ code: 'FET-0404' });
      const created = await sut.create(aPostgresConnection());
      await sut.request('DELETE', `${BASE}/${created.id as string}`);
      expect((await patch(created.id as string, { port: 1 })).status).toBe(404);
    });

    it('refuses while a pending or processing job uses the connection (409/FET-1021), not for finished jobs', async () => {
      const created = await sut.create(aPostgresConnection());
      await seedJob(created.configName as string, 'completed');
      expect((await patch(created.id as string, { port: 1 })).status).toBe(200);
      await seedJob(created.configName as string, 'processing');
      const res = await patch(created.id as string, { port: 2 });
      expect(res.status).toBe(409);
      expect(res.json()).toEqual({ code: 'FET-1021', title: 'Job In Progress', message: 'cannot update connection with active jobs' });
    });
  });

  describe('DELETE', () => {
    it('soft-deletes with 204 and an empty body; a second delete is 404 (quirk)', async () => {
      const created = await sut.create(aPostgresConnection());
      const res = await sut.request('DELETE', `${BASE}/${created.id as string}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const doc = await sut.collection('connection').findOne({ config_name: created.configName });
      expect(doc?.deleted_at).toBeInstanceOf(Date);
      expect((await sut.request('DELETE', `${BASE}/${created.id as string}`)).json()).toMatchObject({ code: 'FET-1001' });
      expect((await sut.request('GET', `${BASE}/${created.id as string}`)).status).toBe(404);
    });

    it('refuses while a job is pending (409/FET-1021) and answers 404 for internal datasources', async () => {
      const created = await sut.create(aPostgresConnection());
      await seedJob(created.configName as string, 'pending');
      const res = await sut.request('DELETE', `${BASE}/${created.id as string}`);
      expect(res.status).toBe(409);
      expect(res.json()).toEqual({ code: 'FET-1021', title: 'Job In Progress', message: 'cannot delete connection with active jobs' });
      expect((await sut.request('DELETE', `${BASE}/${INTERNAL_ID}`)).status).toBe(404);
    });
  });

  describe('unassigned and assign', () => {
    it('lists connections without a product (ids of subtype 4 too) and assigns one exactly once', async () => {
      const id = await seedUnassigned();
      const listed = (await sut.request('GET', `${BASE}/unassigned`, { query: { type: 'MYSQL', limit: '100' } })).json<{ items: { id: string; productName?: string }[] }>();
      const item = listed.items.find((i) => i.id === id);
      expect(item).toBeDefined();
      expect(item).not.toHaveProperty('productName');

      const assigned = await sut.request('POST', `${BASE}/${id}/assign`, { headers: { 'x-product-name': 'Matcher' } });
      expect(assigned.status).toBe(200);
      expect(assigned.json()).toMatchObject({ id, productName: 'matcher' });
      const again = await sut.request('POST', `${BASE}/${id}/assign`, { headers: { 'x-product-name': 'matcher' } });
      expect(again.status).toBe(409);
      expect(again.json()).toEqual({
        code: 'FET-1015',
        title: 'Connection Already Assigned',
        message: 'The connection is already assigned to a product and cannot be reassigned.',
      });
      const after = (await sut.request('GET', `${BASE}/unassigned`, { query: { limit: '100' } })).json<{ items: { id: string }[] }>();
      expect(after.items.map((i) => i.id)).not.toContain(id);
    });

    it('checks the id, then the header, then existence', async () => {
      expect((await sut.request('POST', `${BASE}/bad/assign`)).json()).toMatchObject({ code: 'FET-0404' });
      expect((await sut.request('POST', `${BASE}/${randomUUID()}/assign`)).json()).toMatchObject({ code: 'FET-0403' });
      expect((await sut.request('POST', `${BASE}/${randomUUID()}/assign`, { headers: { 'x-product-name': 'p' } })).json()).toMatchObject({ code: 'FET-1001' });
      expect((await sut.request('POST', `${BASE}/${INTERNAL_ID}/assign`, { headers: { 'x-product-name': 'p' } })).status).toBe(404);
    });

    it('never lists internal datasources or assigned connections among the unassigned', async () => {
      await sut.create(aPostgresConnection());
      const listed = (await sut.request('GET', `${BASE}/unassigned`, { query: { limit: '100' } })).json<{ items: { productName?: string; configName: string }[] }>();
      expect(listed.items.every((i) => i.productName === undefined && i.configName !== 'ledger')).toBe(true);
    });
  });
});
